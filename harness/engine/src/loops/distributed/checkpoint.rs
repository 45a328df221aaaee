//! Checkpoints of a distributed search: one file per rank, `FILE.rankR`
//! (the format of [`crate::checkpoint`]), each with that rank's
//! store and [`Position`].
//!
//! A rank's search stops between two exchanges (a budget or Ctrl-C is
//! polled after a round's states are stored), when no batch is in flight:
//! the ranks' files together are the whole search at one moment, and the
//! search goes on from them with the counters of one run. A stop for
//! memory is the exception: a rank stops inside a round, with successors
//! of states it expanded not stored, so it writes none (the files it went
//! on from stay as they were). Every file names the number of ranks, its
//! rank, its store and the part of the search it was written by, so that
//! a resume on another number of ranks, with another store or from files
//! of different parts is refused.

use std::path::{Path, PathBuf};

use dve_frontend::model::NextState;

use super::{Distributed, Partition, Position, Rank, RankFigures};
use crate::checkpoint::{self, CheckpointError, CheckpointInfo, CheckpointSpec, Loader, Result, Saver};
use crate::comm::Comm;
use crate::limits::Budget;
use crate::loops::bfs::LevelStats;
use crate::loops::parallel::NoWatch;
use crate::outcome::Outcome;
use crate::store::saved::Saved;

/// The file rank `rank` keeps its part of the checkpoint `base` in.
pub fn rank_path(base: &Path, rank: usize) -> PathBuf {
    let mut p = base.as_os_str().to_owned();
    p.push(format!(".rank{rank}"));
    PathBuf::from(p)
}

fn store_name(kind: u64) -> &'static str {
    match kind {
        0 => "exact",
        1 => "tree",
        _ => "another",
    }
}

impl Position {
    fn save(&self, w: &mut Saver) -> Result<()> {
        for v in [
            self.depth,
            self.next as u64,
            self.level_end as u64,
            self.level_edges,
            self.level_back,
            self.prev_edges,
            self.prev_back,
            self.transitions,
            self.deadlocks,
            self.errors,
            self.max_back,
            self.figures.messages_sent,
            self.figures.bytes_sent,
            self.frontier_peak as u64,
            self.rounds,
            self.level_begins as u64,
        ] {
            w.u64(v)?;
        }
        w.f64(self.figures.wait_s)?;
        w.u32s(&self.level_starts)?;
        let levels: Vec<u64> = self
            .levels
            .iter()
            .flat_map(|l| [l.level as u64, l.states, l.edges, l.back_level_edges])
            .collect();
        w.u64s(&levels)
    }

    fn load(r: &mut Loader, rank: usize) -> Result<Position> {
        let mut v = [0u64; 16];
        for x in &mut v {
            *x = r.u64()?;
        }
        let wait_s = r.f64()?;
        let level_starts = r.u32s()?;
        let levels = r.u64s()?;
        if levels.len() % 4 != 0 || level_starts.is_empty() || v[1] > v[2] {
            return Err(CheckpointError::damaged("a rank's position"));
        }
        Ok(Position {
            depth: v[0],
            next: v[1] as usize,
            level_end: v[2] as usize,
            level_edges: v[3],
            level_back: v[4],
            prev_edges: v[5],
            prev_back: v[6],
            transitions: v[7],
            deadlocks: v[8],
            errors: v[9],
            max_back: v[10],
            figures: RankFigures {
                rank: rank as u64,
                messages_sent: v[11],
                bytes_sent: v[12],
                wait_s,
                ..RankFigures::default()
            },
            frontier_peak: v[13] as usize,
            rounds: v[14],
            level_begins: v[15] != 0,
            level_starts,
            levels: levels
                .chunks_exact(4)
                .map(|l| LevelStats {
                    level: l[0] as u32,
                    states: l[1],
                    edges: l[2],
                    back_level_edges: l[3],
                })
                .collect(),
        })
    }
}

/// A rank's file, read.
struct Loaded<S> {
    pos: Position,
    store: S,
    /// The part of the search that wrote it (the same in every rank's).
    token: u64,
    parts: u64,
    cpu_s: f64,
    wall_s: f64,
}

/// This rank's file of `spec` (`None`: there is none).
fn load<S: Saved>(spec: &CheckpointSpec, comm: &dyn Comm, state_len: usize) -> Result<Option<Loaded<S>>> {
    let (me, n) = (comm.rank(), comm.size());
    let Some(mut r) = Loader::open(spec)? else {
        return Ok(None);
    };
    let path = spec.path.clone();
    let (ranks, rank, kind, token) = (r.u64()?, r.u64()?, r.u64()?, r.u64()?);
    if ranks != n as u64 {
        return Err(CheckpointError::Ranks { path, ranks, now: n });
    }
    if rank != me as u64 {
        return Err(CheckpointError::OtherRank { path, rank, me });
    }
    if kind != S::KIND {
        return Err(CheckpointError::OtherStore {
            path,
            theirs: store_name(kind),
            ours: store_name(S::KIND),
        });
    }
    let pos = Position::load(&mut r, me)?;
    let store = S::load(&mut r, state_len)?;
    if pos.level_end > store.len() {
        return Err(CheckpointError::Damaged {
            path: Some(path),
            what: "a rank's position".to_string(),
        });
    }
    let (parts, cpu_s, wall_s) = (r.parts, r.cpu_s, r.wall_s);
    r.finish()?;
    Ok(Some(Loaded {
        pos,
        store,
        token,
        parts,
        cpu_s,
        wall_s,
    }))
}

/// Every rank's `mine` agreed on: the error of the lowest rank that has
/// one, on every rank, else this rank's value.
fn agree<T>(comm: &dyn Comm, mine: Result<T>) -> Result<T> {
    let failed = comm.gather(&[mine.is_err() as u64]);
    let Some(first) = failed.iter().position(|&f| f != 0) else {
        return mine;
    };
    let text = match (&mine, comm.rank() == first) {
        (Err(e), true) => with_causes(e).into_bytes(),
        _ => Vec::new(),
    };
    let text = comm.broadcast(first, text);
    Err(CheckpointError::Rank(String::from_utf8_lossy(&text).into_owned()))
}

/// `e` and what caused it, as anyhow's `{:#}` writes them.
fn with_causes(e: &CheckpointError) -> String {
    let mut text = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        text.push_str(&format!(": {c}"));
        cause = c.source();
    }
    text
}

/// This rank's part of the checkpoint, `token` naming the part of the
/// search that writes it.
fn save<S: Saved>(
    spec: &CheckpointSpec,
    r: &Rank<S, NoWatch>,
    token: u64,
    (cpu_s, wall_s, parts): (f64, f64, u64),
) -> Result<()> {
    let mut w = Saver::create(spec, cpu_s, wall_s, parts)?;
    let written = (|| {
        for v in [r.n as u64, r.me as u64, S::KIND, token] {
            w.u64(v)?;
        }
        r.pos.save(&mut w)?;
        r.store.save(&mut w)
    })();
    match written {
        Ok(()) => w.finish().map(|_| ()),
        Err(e) => {
            w.abandon();
            Err(e)
        }
    }
}

/// [`super::distributed_bfs`] (exploring: no checks) that goes on from
/// the checkpoint `base` names (every rank's file of it), if there is one,
/// and writes one there if it stops for time, Ctrl-C or the state limit;
/// a search that ends removes it (see the module documentation). `fresh`
/// makes the empty store of a search that starts; `elapsed` gives this
/// part's processor and wall-clock seconds.
pub fn distributed_bfs_checkpointed<S: Saved>(
    model: &dyn NextState,
    comm: &dyn Comm,
    budget: &Budget,
    max_states: u64,
    fresh: impl FnOnce() -> S,
    base: &CheckpointSpec,
    elapsed: &dyn Fn() -> (f64, f64),
) -> Result<(Distributed<()>, CheckpointInfo)> {
    let me = comm.rank();
    let spec = CheckpointSpec {
        path: rank_path(&base.path, me),
        digest: base.digest,
    };
    let mut info = CheckpointInfo {
        file: base.path.display().to_string(),
        ..Default::default()
    };
    // A checkpoint that could not be written is found out now, not after
    // the search's hours.
    let dir = match base.path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let loaded = if dir.is_dir() {
        load::<S>(&spec, comm, model.state_len())
    } else {
        Err(CheckpointError::NoDirectory {
            dir: dir.to_path_buf(),
        })
    };
    let loaded = agree(comm, loaded)?;
    let held = comm.gather(&[loaded.as_ref().map_or(u64::MAX, |l| l.token)]);
    if held.iter().any(|&t| t != held[0]) {
        let missing = held.iter().position(|&t| t == u64::MAX);
        match missing {
            Some(k) if held.iter().any(|&t| t != u64::MAX) => {
                return Err(CheckpointError::MissingRank {
                    path: rank_path(&base.path, k),
                    base: base.path.clone(),
                })
            }
            _ => {
                return Err(CheckpointError::MixedRuns {
                    base: base.path.clone(),
                })
            }
        }
    }
    let (mut store, pos) = match loaded {
        Some(l) => {
            (info.prior_cpu_s, info.prior_wall_s, info.resumed_parts) = (l.cpu_s, l.wall_s, l.parts);
            (l.store, Some(l.pos))
        }
        None => (fresh(), None),
    };
    // The whole state decides the owner: a checkpoint does not record a
    // partition chosen from a sample.
    let mut r = Rank::new(model, comm, &mut store, budget, &NoWatch, Partition::whole());
    match pos {
        Some(p) => r.pos = p,
        None => r.start(max_states),
    }
    let (result, violated) = r.search(max_states);
    // A search stopped before its initial state was stored has nothing to
    // go on from.
    let consistent = max_states > 0
        && matches!(
            result,
            Outcome::TimeLimit | Outcome::Interrupted | Outcome::StateLimit
        );
    if consistent {
        let token = u64::from_le_bytes(
            comm.broadcast(
                0,
                checkpoint::digest(format!("{:?}", std::time::SystemTime::now()).as_bytes())
                    .to_le_bytes()
                    .to_vec(),
            )
            .try_into()
            .expect("8 bytes"),
        );
        let (cpu, wall) = elapsed();
        let seconds = (
            info.prior_cpu_s + cpu,
            info.prior_wall_s + wall,
            info.resumed_parts + 1,
        );
        agree(comm, save(&spec, &r, token, seconds))?;
        info.saved = true;
    } else if result == Outcome::Complete && !violated {
        agree(comm, checkpoint::remove(&spec.path))?;
    }
    Ok((r.finish(result, violated), info))
}
