//! Checkpoints: a search that stops for time, memory or Ctrl-C writes
//! what it has (its store, its queues, its counters) to a file, and a
//! later run with the same file goes on from there (`explore --store
//! ctree --checkpoint FILE`), so that a search longer than any one
//! sitting (the census's largest instances take hours) is done in parts.
//!
//! **Format.** Little-endian numbers and length-prefixed byte strings,
//! after a header: [`MAGIC`], the format's version, the model's digest
//! (a checkpoint is refused for another model), and the processor and
//! wall-clock seconds of the parts before; the file ends with a checksum
//! of everything before it, so that a file cut short or damaged is
//! refused with a message, never read into a search. A file is written
//! next to its final name and renamed over it when complete: an old
//! checkpoint stays whole until the new one is.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// What can go wrong with a checkpoint: its file, or its content.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading, writing or removing the file failed.
    #[error("{doing} the checkpoint {}", path.display())]
    Io {
        doing: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The finished file could not be put in place.
    #[error("renaming {} to {}", from.display(), to.display())]
    Rename {
        from: PathBuf,
        to: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Another failure of the system while writing.
    #[error(transparent)]
    System(#[from] std::io::Error),
    /// The bytes do not hold what the format says (`what`: where).
    #[error("{}the checkpoint is damaged ({what})", prefix(path))]
    Damaged { path: Option<PathBuf>, what: String },
    /// Not a file of this format.
    #[error("{}: not a dvemc checkpoint{}", path.display(), if *too_short { " (too short)" } else { "" })]
    NotACheckpoint { path: PathBuf, too_short: bool },
    /// A format this dvemc does not read.
    #[error("{}: a checkpoint of format {version}; this dvemc reads formats 1 to {VERSION}", path.display())]
    Format { path: PathBuf, version: u64 },
    /// Written for another model.
    #[error("{}: the checkpoint of another model (or of this one before it changed); remove it to start afresh", path.display())]
    OtherModel { path: PathBuf },
    /// The folder it would be written to does not exist.
    #[error("{}: no such directory for the checkpoint", dir.display())]
    NoDirectory { dir: PathBuf },
    /// A distributed search's file written by another number of ranks.
    #[error("{}: a checkpoint of {ranks} ranks; this run has {now}: start it with mpirun -np {ranks}", path.display())]
    Ranks { path: PathBuf, ranks: u64, now: usize },
    /// A distributed search's file of another rank.
    #[error("{}: the checkpoint of rank {rank}, not of rank {me}", path.display())]
    OtherRank { path: PathBuf, rank: u64, me: usize },
    /// A distributed search's file of another store.
    #[error("{}: a checkpoint of the {theirs} store; this run keeps the {ours} store: give --store {theirs}", path.display())]
    OtherStore {
        path: PathBuf,
        theirs: &'static str,
        ours: &'static str,
    },
    /// One rank's file is missing while the others have theirs.
    #[error("{}: missing, beside the other ranks' checkpoints: restore it, or remove {}.rank* to start afresh", path.display(), base.display())]
    MissingRank { path: PathBuf, base: PathBuf },
    /// The ranks' files are of different parts of the search.
    #[error("{}.rank*: the ranks' checkpoints were written by different runs (one was not written to its end); remove them to start afresh", base.display())]
    MixedRuns { base: PathBuf },
    /// Another rank's error, as that rank wrote it.
    #[error("{0}")]
    Rank(String),
}

fn prefix(path: &Option<PathBuf>) -> String {
    path.as_ref()
        .map(|p| format!("{}: ", p.display()))
        .unwrap_or_default()
}

impl CheckpointError {
    /// Damaged content found where the file's name is not at hand.
    pub fn damaged(what: &str) -> CheckpointError {
        CheckpointError::Damaged {
            path: None,
            what: what.to_string(),
        }
    }

    fn io<'a>(doing: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> CheckpointError + 'a {
        move |source| CheckpointError::Io {
            doing,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A checkpoint's result.
pub type Result<T> = std::result::Result<T, CheckpointError>;

/// The first bytes of a checkpoint.
const MAGIC: &[u8; 8] = b"DVEMCCKP";
/// The format's version (a change of what is written changes it). Format
/// 1 had one root table (no count before it); this dvemc reads it too.
const VERSION: u64 = 2;

/// Where a search keeps its checkpoint, and the model it belongs to.
#[derive(Clone, Debug)]
pub struct CheckpointSpec {
    pub path: PathBuf,
    /// A digest of the model's text (and of anything else that changes
    /// its state space).
    pub digest: u64,
}

/// What a run did with its checkpoint (in the record as `checkpoint`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CheckpointInfo {
    /// The file.
    pub file: String,
    /// Parts of the search run before this one (0: it started here).
    pub resumed_parts: u64,
    /// Processor and wall-clock seconds of those parts.
    pub prior_cpu_s: f64,
    pub prior_wall_s: f64,
    /// Whether this run wrote the file (it stopped before its end); a
    /// search that ends removes the file it went on from.
    pub saved: bool,
}

/// The digest of a model's text: FNV-1a over its bytes.
pub fn digest(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The running checksum: every 8 bytes mixed in (fast enough for files of
/// gigabytes: a multiply per word).
#[derive(Clone, Copy)]
struct Sum {
    h: u64,
    /// Bytes not yet a whole word, and how many.
    part: [u8; 8],
    n: usize,
}

impl Sum {
    fn new() -> Sum {
        Sum {
            h: 0x9E37_79B9_7F4A_7C15,
            part: [0; 8],
            n: 0,
        }
    }

    #[inline]
    fn word(&mut self, w: u64) {
        self.h = (self.h ^ w).wrapping_mul(0xBF58_476D_1CE4_E5B9).rotate_left(29);
    }

    fn add(&mut self, mut bytes: &[u8]) {
        while self.n > 0 && !bytes.is_empty() {
            self.part[self.n] = bytes[0];
            self.n += 1;
            bytes = &bytes[1..];
            if self.n == 8 {
                self.word(u64::from_le_bytes(self.part));
                self.n = 0;
            }
        }
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.word(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        for &b in words.remainder() {
            self.part[self.n] = b;
            self.n += 1;
        }
    }

    fn finish(mut self) -> u64 {
        let len = self.n;
        self.part[len..].fill(0);
        self.word(u64::from_le_bytes(self.part) ^ (len as u64) << 56);
        self.h
    }
}

/// Writes a checkpoint (see the module comment).
pub struct Saver {
    w: BufWriter<File>,
    sum: Sum,
    tmp: PathBuf,
    path: PathBuf,
}

impl Saver {
    /// Starts the checkpoint of `spec` (into a temporary file beside it),
    /// with the seconds of every part so far.
    pub fn create(spec: &CheckpointSpec, cpu_s: f64, wall_s: f64, parts: u64) -> Result<Saver> {
        Saver::create_as(spec, VERSION, cpu_s, wall_s, parts)
    }

    /// [`create`](Self::create), of format `version` (tests of the older
    /// formats' reading).
    pub(crate) fn create_as(
        spec: &CheckpointSpec,
        version: u64,
        cpu_s: f64,
        wall_s: f64,
        parts: u64,
    ) -> Result<Saver> {
        let mut tmp = spec.path.clone().into_os_string();
        tmp.push(".part");
        let tmp = PathBuf::from(tmp);
        let file = File::create(&tmp).map_err(CheckpointError::io("writing", &tmp))?;
        let mut s = Saver {
            w: BufWriter::with_capacity(1 << 20, file),
            sum: Sum::new(),
            tmp,
            path: spec.path.clone(),
        };
        s.raw(MAGIC)?;
        s.u64(version)?;
        s.u64(spec.digest)?;
        s.f64(cpu_s)?;
        s.f64(wall_s)?;
        s.u64(parts)?;
        Ok(s)
    }

    fn raw(&mut self, b: &[u8]) -> Result<()> {
        self.sum.add(b);
        self.w
            .write_all(b)
            .map_err(CheckpointError::io("writing", &self.tmp))
    }

    pub fn u64(&mut self, v: u64) -> Result<()> {
        self.raw(&v.to_le_bytes())
    }

    pub fn f64(&mut self, v: f64) -> Result<()> {
        self.raw(&v.to_le_bytes())
    }

    pub fn bytes(&mut self, b: &[u8]) -> Result<()> {
        self.u64(b.len() as u64)?;
        self.raw(b)
    }

    pub fn u32s(&mut self, v: &[u32]) -> Result<()> {
        self.words(v, |x, buf| buf.extend_from_slice(&x.to_le_bytes()))
    }

    pub fn u64s(&mut self, v: &[u64]) -> Result<()> {
        self.words(v, |x, buf| buf.extend_from_slice(&x.to_le_bytes()))
    }

    /// A count, then the numbers' bytes, written a block at a time.
    fn words<T: Copy>(&mut self, v: &[T], put: impl Fn(T, &mut Vec<u8>)) -> Result<()> {
        self.u64(v.len() as u64)?;
        let mut buf = Vec::with_capacity(std::mem::size_of::<T>() << 14);
        for c in v.chunks(1 << 14) {
            buf.clear();
            for &x in c {
                put(x, &mut buf);
            }
            self.raw(&buf)?;
        }
        Ok(())
    }

    /// Ends the file with its checksum and puts it in place; its size.
    pub fn finish(mut self) -> Result<u64> {
        let sum = self.sum.finish();
        self.w
            .write_all(&sum.to_le_bytes())
            .and_then(|_| self.w.flush())
            .map_err(CheckpointError::io("writing", &self.tmp))?;
        let file = self.w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        let size = file.metadata()?.len();
        drop(file);
        std::fs::rename(&self.tmp, &self.path).map_err(|source| CheckpointError::Rename {
            from: self.tmp.clone(),
            to: self.path.clone(),
            source,
        })?;
        Ok(size)
    }

    /// Gives up (the temporary file is removed).
    pub fn abandon(self) {
        let tmp = self.tmp.clone();
        drop(self);
        let _ = std::fs::remove_file(tmp);
    }
}

/// Reads a checkpoint written by [`Saver`]: the header when opened, the
/// checksum at [`Loader::finish`]. Every length is checked against what
/// the file has left, so a damaged file allocates nothing absurd.
pub struct Loader {
    r: BufReader<File>,
    sum: Sum,
    left: u64,
    path: PathBuf,
    pub cpu_s: f64,
    pub wall_s: f64,
    pub parts: u64,
    /// The file's format.
    version: u64,
}

impl Loader {
    /// The file's format (what was written may differ between formats).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Opens the checkpoint of `spec`, if there is one.
    pub fn open(spec: &CheckpointSpec) -> Result<Option<Loader>> {
        let file = match File::open(&spec.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(CheckpointError::io("reading", &spec.path)(e)),
        };
        let len = file.metadata()?.len();
        let mut l = Loader {
            r: BufReader::with_capacity(1 << 20, file),
            sum: Sum::new(),
            left: len.saturating_sub(8),
            path: spec.path.clone(),
            cpu_s: 0.0,
            wall_s: 0.0,
            parts: 0,
            version: VERSION,
        };
        if len < 8 + 8 * 6 {
            return Err(CheckpointError::NotACheckpoint {
                path: spec.path.clone(),
                too_short: true,
            });
        }
        let mut magic = [0u8; 8];
        l.raw(&mut magic)?;
        if &magic != MAGIC {
            return Err(CheckpointError::NotACheckpoint {
                path: spec.path.clone(),
                too_short: false,
            });
        }
        let version = l.u64()?;
        l.version = version;
        if !(1..=VERSION).contains(&version) {
            return Err(CheckpointError::Format {
                path: spec.path.clone(),
                version,
            });
        }
        if l.u64()? != spec.digest {
            return Err(CheckpointError::OtherModel {
                path: spec.path.clone(),
            });
        }
        l.cpu_s = l.f64()?;
        l.wall_s = l.f64()?;
        l.parts = l.u64()?;
        Ok(Some(l))
    }

    fn damaged(&self, what: &str) -> CheckpointError {
        CheckpointError::Damaged {
            path: Some(self.path.clone()),
            what: what.to_string(),
        }
    }

    fn raw(&mut self, b: &mut [u8]) -> Result<()> {
        if (b.len() as u64) > self.left {
            return Err(self.damaged("cut short"));
        }
        self.r
            .read_exact(b)
            .map_err(CheckpointError::io("reading", &self.path))?;
        self.left -= b.len() as u64;
        self.sum.add(b);
        Ok(())
    }

    pub fn u64(&mut self) -> Result<u64> {
        let mut b = [0u8; 8];
        self.raw(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    pub fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_bits(self.u64()?))
    }

    /// A count of items of `size` bytes that the file can still hold.
    fn count(&mut self, size: u64) -> Result<usize> {
        let n = self.u64()?;
        if n.saturating_mul(size) > self.left {
            return Err(self.damaged("a length past its end"));
        }
        Ok(n as usize)
    }

    /// A number that must be below `bound` (a size, a width, an index).
    pub fn below(&mut self, bound: u64, what: &str) -> Result<u64> {
        let v = self.u64()?;
        if v >= bound {
            return Err(self.damaged(what));
        }
        Ok(v)
    }

    pub fn bytes(&mut self) -> Result<Vec<u8>> {
        let n = self.count(1)?;
        // A table's slots, read at random: huge pages asked for before the
        // read writes them (`advise_huge_capacity`).
        let mut v = vec![0u8; n];
        crate::store::advise_huge_capacity(&mut v);
        self.raw(&mut v)?;
        Ok(v)
    }

    pub fn u32s(&mut self) -> Result<Vec<u32>> {
        self.words(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
    }

    pub fn u64s(&mut self) -> Result<Vec<u64>> {
        self.words(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
    }

    /// What [`Saver`]'s `words` wrote: numbers of `T`'s size, a block at a
    /// time.
    fn words<T>(&mut self, get: impl Fn(&[u8]) -> T) -> Result<Vec<T>> {
        let size = std::mem::size_of::<T>();
        let n = self.count(size as u64)?;
        let mut v = Vec::with_capacity(n);
        crate::store::advise_huge_capacity(&mut v);
        let mut buf = vec![0u8; size << 14];
        let mut left = n;
        while left > 0 {
            let k = left.min(1 << 14);
            self.raw(&mut buf[..size * k])?;
            v.extend(buf[..size * k].chunks_exact(size).map(&get));
            left -= k;
        }
        Ok(v)
    }

    /// Checks that everything was read and the checksum agrees.
    pub fn finish(mut self) -> Result<()> {
        if self.left != 0 {
            return Err(self.damaged("bytes left over"));
        }
        let want = self.sum.finish();
        let mut b = [0u8; 8];
        self.r
            .read_exact(&mut b)
            .map_err(CheckpointError::io("reading", &self.path))?;
        if u64::from_le_bytes(b) != want {
            return Err(self.damaged("its checksum differs"));
        }
        Ok(())
    }
}

/// Removes the checkpoint of a search that ended (a stale one would only
/// start it again from the middle).
pub fn remove(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(CheckpointError::io("removing", path)(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, digest: u64) -> CheckpointSpec {
        let dir = std::env::temp_dir().join(format!("dvemc-ckpt-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        CheckpointSpec {
            path: dir.join("c.ckpt"),
            digest,
        }
    }

    #[test]
    fn what_is_written_is_read_back_and_damage_is_refused() {
        let s = spec("rw", 7);
        let mut w = Saver::create(&s, 1.5, 2.5, 3).unwrap();
        w.u64(42).unwrap();
        w.bytes(b"hello").unwrap();
        w.u32s(&(0..40_000).collect::<Vec<u32>>()).unwrap();
        w.u64s(&[1, 2, 3]).unwrap();
        w.finish().unwrap();
        let mut r = Loader::open(&s).unwrap().unwrap();
        assert_eq!((r.cpu_s, r.wall_s, r.parts), (1.5, 2.5, 3));
        assert_eq!(r.u64().unwrap(), 42);
        assert_eq!(r.bytes().unwrap(), b"hello");
        assert_eq!(r.u32s().unwrap(), (0..40_000).collect::<Vec<u32>>());
        assert_eq!(r.u64s().unwrap(), vec![1, 2, 3]);
        r.finish().unwrap();

        // Another model's checkpoint is refused.
        let other = CheckpointSpec {
            digest: 8,
            ..s.clone()
        };
        assert!(Loader::open(&other)
            .err()
            .unwrap()
            .to_string()
            .contains("another model"));

        // One byte changed: the checksum tells.
        let mut bytes = std::fs::read(&s.path).unwrap();
        bytes[100] ^= 1;
        std::fs::write(&s.path, &bytes).unwrap();
        let mut r = Loader::open(&s).unwrap().unwrap();
        r.u64().unwrap();
        r.bytes().unwrap();
        r.u32s().unwrap();
        r.u64s().unwrap();
        assert!(r.finish().err().unwrap().to_string().contains("checksum"));

        // Cut short: a length past the end is refused before allocating.
        std::fs::write(&s.path, &bytes[..200]).unwrap();
        let mut r = Loader::open(&s).unwrap().unwrap();
        r.u64().unwrap();
        r.bytes().unwrap();
        assert!(r.u32s().err().unwrap().to_string().contains("damaged"));

        // Not a checkpoint at all; none at all.
        std::fs::write(&s.path, vec![b'x'; 100]).unwrap();
        assert!(Loader::open(&s)
            .err()
            .unwrap()
            .to_string()
            .contains("not a dvemc checkpoint"));
        remove(&s.path).unwrap();
        assert!(Loader::open(&s).unwrap().is_none());
    }
}
