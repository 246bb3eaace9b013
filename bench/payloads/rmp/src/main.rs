//! Orders with a nested customer, a list of line items and an optional note, as rmp-serde
//! writes them: `to_vec_named` (structs as maps) and `to_vec` (its default: structs as arrays).
//! Deterministic. Usage: gen-rmp-payloads OUT_DIR
use serde::Serialize;

#[derive(Serialize)]
struct Customer {
    name: String,
    tier: u8,
}

#[derive(Serialize)]
struct Item {
    sku: String,
    qty: u16,
    price: f64,
}

#[derive(Serialize)]
struct Order {
    id: u64,
    customer: Customer,
    items: Vec<Item>,
    total: f64,
    paid: bool,
    note: Option<String>,
}

fn main() {
    let out = std::env::args().nth(1).expect("usage: gen-rmp-payloads OUT_DIR");
    // A small LCG: deterministic without a rand dependency.
    let mut seed: u64 = 5;
    let mut next = move |m: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % m
    };
    let orders: Vec<Order> = (0..30_000u64)
        .map(|i| {
            let items: Vec<Item> = (0..1 + next(4)).map(|_| Item { sku: format!("SKU-{:05}", next(20_000)), qty: 1 + next(9) as u16, price: next(100_000) as f64 / 100.0 }).collect();
            let total = items.iter().map(|it| it.price * it.qty as f64).sum();
            Order { id: 1_000_000 + i, customer: Customer { name: format!("customer {}", next(5_000)), tier: next(4) as u8 }, items, total, paid: next(3) > 0, note: if next(5) == 0 { Some("leave at the door".into()) } else { None } }
        })
        .collect();
    std::fs::write(format!("{out}/payload_rust-named.msgpack"), rmp_serde::to_vec_named(&orders).unwrap()).unwrap();
    std::fs::write(format!("{out}/payload_rust-arrays.msgpack"), rmp_serde::to_vec(&orders).unwrap()).unwrap();
}
