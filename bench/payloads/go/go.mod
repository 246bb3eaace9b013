module arrowsmith/bench/payloads/go

go 1.22

require github.com/vmihailenco/msgpack/v5 v5.4.1

require github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
