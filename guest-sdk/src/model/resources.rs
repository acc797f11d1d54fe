//! The charm's resources (metadata.yaml `resources`): ops'
//! `Model.resources`.
//!
//! ```no_run
//! use wasm_charm::model::resources;
//!
//! let image = resources::fetch("workload-image")?;
//! println!("the image is at {}", image.display());
//! # Ok::<(), wasm_charm::Error>(())
//! ```

use std::path::PathBuf;

use super::{ModelError, wit};

/// The path of resource `name`, as ops' `Resources.fetch`. Juju fetches it
/// if needed; a resource never uploaded is [`ModelError::NotFound`].
///
/// ```no_run
/// use wasm_charm::model::{ModelError, resources};
///
/// match resources::fetch("workload-image") {
///     Ok(path) => println!("{}", path.display()),
///     Err(ModelError::NotFound(_)) => println!("attach it with `juju attach-resource`"),
///     Err(e) => return Err(e.into()),
/// }
/// # Ok::<(), wasm_charm::Error>(())
/// ```
#[doc(alias = "resource-get")]
pub fn fetch(name: &str) -> Result<PathBuf, ModelError> {
    wit::resource_get(name).map(PathBuf::from)
}
