//! Where the scope store lives for one run: the backend the pipeline loads
//! it from and saves it to (DESIGN §6), the local file or Juju's charm
//! state.

use super::store::ScopeStore;
use super::store_edit::StoreEdit;
use super::{store_file, store_juju};

/// Where the scope store lives for this run.
pub trait ScopeBackend {
    fn load(&mut self) -> anyhow::Result<ScopeStore>;
    /// Refuse a store this backend could not keep (one past Juju's quota),
    /// before anything of the event is written; `planned` builds the store
    /// the event will save. The default keeps any, building nothing.
    fn check(&mut self, _planned: &dyn Fn() -> ScopeStore) -> anyhow::Result<()> {
        Ok(())
    }
    /// Save the store as `edit` left it, an edit of what `load` gave.
    fn save(&mut self, edit: &StoreEdit) -> anyhow::Result<()>;
}

impl ScopeBackend for store_file::StoreFile {
    fn load(&mut self) -> anyhow::Result<ScopeStore> {
        Ok(store_file::StoreFile::load(self)?)
    }
    fn save(&mut self, edit: &StoreEdit) -> anyhow::Result<()> {
        Ok(store_file::StoreFile::save(self, edit)?)
    }
}

/// On the juju backend the save (`state-set`, `state-delete`) comes last as
/// on the local one, after `relation-set` and `status-set`; Juju holds it
/// with the relation data and commits both only when the hook exits 0, so
/// a failed, killed or uncommittable hook keeps neither, and the statuses
/// it wrote at once are written again by the retry (the store does not
/// remember them). The quota is checked before any of those writes.
impl ScopeBackend for store_juju::JujuStore {
    fn load(&mut self) -> anyhow::Result<ScopeStore> {
        Ok(store_juju::JujuStore::load(self)?)
    }
    fn check(&mut self, planned: &dyn Fn() -> ScopeStore) -> anyhow::Result<()> {
        Ok(store_juju::JujuStore::check(self, &planned())?)
    }
    /// It compares with the store it loaded itself.
    fn save(&mut self, edit: &StoreEdit) -> anyhow::Result<()> {
        Ok(store_juju::JujuStore::save(self, edit)?)
    }
}
