//! Counts the reachable states of a DVE model with the reference
//! interpreter (a minimal BFS; the real tool is `dvemc`).
use dve_frontend::model::{NextState, SuccBuf};
use std::collections::HashMap;

fn main() {
    let path = std::env::args().nth(1).expect("usage: count MODEL.dve");
    let model = match dve_frontend::load_file(path.as_ref()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(3);
        }
    };
    let interp = dve_frontend::interp::Interpreter::new(model);
    let mut seen: HashMap<Vec<u8>, u32> = HashMap::new();
    let mut queue = vec![interp.initial_vec()];
    seen.insert(queue[0].clone(), 0);
    let mut buf = SuccBuf::new(interp.state_len());
    let (mut i, mut edges) = (0, 0u64);
    while i < queue.len() {
        interp.successors(&queue[i].clone(), &mut buf);
        edges += buf.len() as u64;
        for (_, s) in buf.iter() {
            if !seen.contains_key(s) {
                seen.insert(s.to_vec(), 0);
                queue.push(s.to_vec());
            }
        }
        i += 1;
    }
    println!(
        "states {} edges {} state_len {}",
        queue.len(),
        edges,
        interp.state_len()
    );
}
