//! The files-only commands a team starts with, and the dashboard tools: each reads the
//! checkout or a body, and none touches GitHub or a stack's tool (but for `check
//! --backend`, which asks the backends when told to).

pub mod backend_check;
pub mod check;
pub mod console;
pub mod dashboard;
pub mod init;
