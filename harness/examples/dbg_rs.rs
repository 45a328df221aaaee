use dve_frontend::model::{NextState, SuccBuf};
use harness::store::StateStore;
fn main() {
    let beem = harness::manifest::Beem::locate(None).unwrap();
    for inst in std::env::args().skip(1) {
        let ir = dve_frontend::load_file(&beem.model_path(&inst)).unwrap();
        let m = dve_frontend::interp::Interpreter::new(ir);
        let mut store = StateStore::new(m.state_len());
        let mut buf = SuccBuf::new(m.state_len());
        let init = m.initial_vec();
        store.insert(&init, m.fingerprint(&init));
        let mut edges = Vec::new();
        let mut next = 0u32; let mut dead = 0;
        while (next as usize) < store.len() {
            m.successors(store.get(next), &mut buf);
            if buf.is_empty() { dead += 1; }
            for (_, s) in buf.iter() { let (id,_) = store.insert(s, m.fingerprint(s)); edges.push((next,id)); }
            next += 1;
        }
        let n = store.len();
        let g = harness::bbmc::Csr::build(n, edges.iter().copied());
        let comp = harness::bbmc::sccs(&g);
        let nc = *comp.iter().max().unwrap() as usize + 1;
        let mut size = vec![0usize; nc];
        for &c in &comp { size[c as usize] += 1; }
        let mut terminal = vec![true; nc];
        for &(a,b) in &edges { if comp[a as usize] != comp[b as usize] { terminal[comp[a as usize] as usize] = false; } }
        let term: Vec<usize> = (0..nc).filter(|&c| terminal[c]).map(|c| size[c]).collect();
        let big = *size.iter().max().unwrap();
        let mut ts = term.clone(); ts.sort(); ts.reverse();
        let levels = harness::explore::bfs(&m, &harness::explore::Limits::default(), false).levels.unwrap();
        let h = (levels - 1) as f64; let df = (n as f64).powf(1.0/h)/h;
        let transient = n - term.iter().sum::<usize>();
        println!("{inst}: h {h} DF {df:.3} transient {transient} ");
        println!("  {inst}: states {n} edges {} deadlocks {dead} sccs {nc} largest {big} terminal sccs {} (largest {:?}) init-scc size {}", edges.len(), term.len(), &ts[..ts.len().min(4)], size[comp[0] as usize]);
    }
}
