//! The OpenTofu and Terraform adapter (one adapter, two binaries). So far: reading the
//! plan JSON that `show -json` prints into changes, streamed so that memory follows the
//! largest resource, not the plan.

pub mod plan;
mod plan_paths;
