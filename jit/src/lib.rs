//! Cranelift JIT backend for DVE models: lowers the frontend's IR to native
//! successor and fingerprint functions. Filled by the JIT issue; until then
//! the interpreter (`dve_frontend::interp`) is the only backend.
