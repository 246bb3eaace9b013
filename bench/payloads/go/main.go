// MessagePack payloads as a Go service writes them with github.com/vmihailenco/msgpack/v5
// (bench/payloads.mjs runs this): telemetry structs with a nested struct, a slice of tags and
// a time.Time (the timestamp extension), as maps (the default) and as arrays (`as_array`).
// Deterministic. Usage: go run . OUT_DIR
package main

import (
	"math/rand"
	"os"
	"path/filepath"
	"time"

	"github.com/vmihailenco/msgpack/v5"
)

type Location struct {
	Lat float64 `msgpack:"lat"`
	Lon float64 `msgpack:"lon"`
}

type Telemetry struct {
	Device   string    `msgpack:"device"`
	At       time.Time `msgpack:"at"`
	Temp     float64   `msgpack:"temp"`
	Humidity float32   `msgpack:"humidity"`
	Battery  uint8     `msgpack:"battery"`
	Seq      uint32    `msgpack:"seq"`
	Tags     []string  `msgpack:"tags"`
	Where    Location  `msgpack:"where"`
}

type TelemetryRow struct {
	_msgpack struct{} `msgpack:",as_array"`
	Device   string
	At       time.Time
	Temp     float64
	Humidity float32
	Battery  uint8
	Seq      uint32
}

func main() {
	out := os.Args[1]
	r := rand.New(rand.NewSource(3))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tags := []string{"roof", "north", "indoor", "calibrated", "v2"}
	const n = 50_000
	maps := make([]Telemetry, n)
	rows := make([]TelemetryRow, n)
	for i := range maps {
		at := t0.Add(time.Duration(i) * time.Second)
		dev := "sensor-" + string(rune('a'+r.Intn(26))) + string(rune('a'+r.Intn(26)))
		k := r.Intn(4)
		maps[i] = Telemetry{dev, at, 15 + r.Float64()*10, float32(r.Intn(1000)) / 10, uint8(r.Intn(101)), uint32(i), tags[k : k+1+r.Intn(2)], Location{48 + r.Float64(), 11 + r.Float64()}}
		rows[i] = TelemetryRow{Device: dev, At: at, Temp: maps[i].Temp, Humidity: maps[i].Humidity, Battery: maps[i].Battery, Seq: uint32(i)}
	}
	for name, v := range map[string]interface{}{"go-structs": maps, "go-arrays": rows} {
		b, err := msgpack.Marshal(v)
		if err != nil {
			panic(err)
		}
		if err := os.WriteFile(filepath.Join(out, "payload_"+name+".msgpack"), b, 0o644); err != nil {
			panic(err)
		}
	}
}
