//! Prints the model of a seed: `cargo run -p dve-gen --example gen -- SEED`.
fn main() {
    let seed = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    print!("{}", dve_gen::generate(seed).text);
}
