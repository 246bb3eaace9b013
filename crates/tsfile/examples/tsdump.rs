//! Print a TsFile's tables, devices and series: `cargo run -p arrowsmith-tsfile --example tsdump -- FILE`.

use arrowsmith_tsfile::TsFile;

fn main() {
    let path = std::env::args().nth(1).expect("usage: tsdump FILE");
    let bytes = std::fs::read(&path).unwrap();
    let f = TsFile::open(&bytes).unwrap_or_else(|e| panic!("{e}"));
    println!(
        "version {} size {} index {:?} properties {:?}",
        f.version(),
        f.size(),
        f.index_range(),
        f.properties()
    );
    for t in f.tables() {
        let cols: Vec<String> = t
            .columns
            .iter()
            .map(|c| format!("{}:{}:{:?}", c.name, c.dtype.name(), c.category))
            .collect();
        println!("table {} [{}]", t.name, cols.join(", "));
    }
    for d in f.devices(None) {
        println!("device {} tags {:?}", d.path, d.tags);
    }
    for s in f.timeseries(&bytes).unwrap_or_else(|e| panic!("{e}")) {
        println!(
            "  {}.{} {} {} {} aligned={} count={} chunks={} [{}, {}]",
            s.device,
            s.measurement,
            s.dtype.name(),
            s.encoding.map_or("?", |e| e.name()),
            s.compression.map_or("?", |c| c.name()),
            s.aligned,
            s.count,
            s.chunks,
            s.start,
            s.end
        );
    }
}
