fn main() {
    let dir = std::env::args().nth(1).expect("usage: check_all DIR");
    let mut n = 0;
    let mut bad = 0;
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    for p in paths {
        n += 1;
        if let Err(e) = dve_frontend::load_file(&p) {
            bad += 1;
            eprintln!("{e}");
        }
    }
    println!("{n} files, {bad} failed");
}
