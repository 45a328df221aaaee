//! `caching-bench table2|table3`: the experiments of the state-caching
//! paper (see `harness::caching::bench`); `make bench-caching` and
//! `make bench-sweepline` run it.

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match harness::caching::bench::main_with_args(&args) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("caching-bench: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}
