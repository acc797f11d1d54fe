//! The event's writes: relation data, port requests, secret requests,
//! storage requests and a reboot after the hook, buffered per handler.
//! [`Model::commit_handler`] keeps the writes of a handler that returned,
//! [`Model::abort_handler`] drops those of one that trapped, and
//! [`Model::flush`] sends the kept ones at the end of the event: one
//! `relation-set --file -` per databag, then each port request, then each
//! secret request, then each storage request, in the order the handlers
//! made them, then `juju-reboot`. Juju applies them all when the hook
//! exits 0, and none otherwise (it reboots only after a hook that
//! succeeded).

use super::Model;
use super::budget::{MAX_RELATION_BYTES_PER_EVENT, MAX_STORAGE_REQUESTS_PER_EVENT};
use super::cache::Bag;
use super::names::rel_arg;
use super::ports::{self, PortRequest};
use super::secrets::{self, SecretRequest};
use super::tool_calls::Caller;
use crate::bindings::RelationRef;
use crate::bindings::model::ModelError;
use crate::text::juju_json;
use std::collections::BTreeMap;

/// A local databag written to: (endpoint, relation id, the app's bag?).
pub(super) type BagRef = (String, u32, bool);

/// Relation writes not yet sent: bag → key → value ("" deletes).
type Pending = BTreeMap<BagRef, Bag>;

/// Bytes of keys and values in pending writes.
fn pending_bytes(pending: &Pending) -> usize {
    pending
        .values()
        .flat_map(|bag| bag.iter())
        .map(|(k, v)| k.len() + v.len())
        .sum()
}

/// The writes kept from returned handlers, and the running handler's.
#[derive(Debug, Default)]
pub(super) struct Transaction {
    committed: Pending,
    handler: Pending,
    committed_ports: Vec<PortRequest>,
    handler_ports: Vec<PortRequest>,
    committed_secrets: Vec<SecretRequest>,
    handler_secrets: Vec<SecretRequest>,
    /// `storage-add` requests: (storage name, count).
    committed_storage: Vec<(String, u32)>,
    handler_storage: Vec<(String, u32)>,
    /// `juju-reboot` once the hook has ended.
    committed_reboot: bool,
    handler_reboot: bool,
    /// [`pending_bytes`] of `committed`, and what merging `handler` into it
    /// would change that by: kept as writes come, so a bound check costs
    /// only the call's keys.
    committed_bytes: usize,
    handler_delta: isize,
}

impl Transaction {
    /// Keep the running handler's writes.
    pub(super) fn commit(&mut self) {
        for (key, changes) in std::mem::take(&mut self.handler) {
            self.committed.entry(key).or_default().extend(changes);
        }
        self.committed_bytes = pending_bytes(&self.committed);
        self.handler_delta = 0;
        for request in std::mem::take(&mut self.handler_ports) {
            ports::push(&mut self.committed_ports, request);
        }
        self.committed_secrets
            .append(&mut std::mem::take(&mut self.handler_secrets));
        self.committed_storage
            .append(&mut std::mem::take(&mut self.handler_storage));
        self.committed_reboot |= std::mem::take(&mut self.handler_reboot);
    }

    /// Drop the running handler's writes.
    pub(super) fn abort(&mut self) {
        self.handler.clear();
        self.handler_delta = 0;
        self.handler_ports.clear();
        self.handler_secrets.clear();
        self.handler_storage.clear();
        self.handler_reboot = false;
    }

    /// The pending metadata changes of the secret with bare id `id`, in
    /// order: kept ones, then the running handler's.
    pub(super) fn secret_changes<'a>(
        &'a self,
        id: &'a str,
    ) -> impl Iterator<Item = &'a secrets::InfoChange> + 'a {
        self.committed_secrets
            .iter()
            .chain(&self.handler_secrets)
            .filter(move |r| r.id == id)
            .filter_map(|r| r.change.as_ref())
    }

    /// The port requests kept and the running handler's, in order.
    pub(super) fn port_requests(&self) -> impl Iterator<Item = &PortRequest> {
        self.committed_ports.iter().chain(&self.handler_ports)
    }

    /// Show the pending writes to `bag` in `data`, read from Juju: the
    /// local bags show this event's writes, as Juju's local context does.
    pub(super) fn overlay(&self, bag: &BagRef, data: &mut Bag) {
        for pending in [&self.committed, &self.handler] {
            for (k, v) in pending.get(bag).into_iter().flatten() {
                if v.is_empty() {
                    data.remove(k);
                } else {
                    data.insert(k.clone(), v.clone());
                }
            }
        }
    }

    /// Buffer relation data of the running handler, within the event's
    /// bound on pending relation data.
    pub(super) fn write_relation(
        &mut self,
        bag: BagRef,
        changes: Vec<(String, String)>,
    ) -> Result<(), ModelError> {
        let grown = self.growth(&bag, &changes);
        let total = self
            .committed_bytes
            .saturating_add_signed(self.handler_delta + grown);
        if total > MAX_RELATION_BYTES_PER_EVENT {
            return Err(ModelError::InvalidArgument(format!(
                "relation data write to {}:{} refused: this event's pending relation data would be {total} bytes, over the limit of {MAX_RELATION_BYTES_PER_EVENT} (MAX_RELATION_BYTES_PER_EVENT, Juju's cap on one settings collection); write less per event",
                bag.0, bag.1
            )));
        }
        self.handler_delta += grown;
        self.handler.entry(bag).or_default().extend(changes);
        Ok(())
    }

    /// What the pending writes grow by once `changes` to `bag` are merged:
    /// a key written before in this event (by this handler or an earlier
    /// one, or earlier in `changes`) is replaced.
    fn growth(&self, bag: &BagRef, changes: &[(String, String)]) -> isize {
        let (handler, committed) = (self.handler.get(bag), self.committed.get(bag));
        let pending = |k: &String| {
            handler
                .and_then(|p| p.get(k))
                .or_else(|| committed.and_then(|p| p.get(k)))
                .map(|old| k.len() + old.len())
        };
        let mut grown = 0isize;
        let mut seen = BTreeMap::new();
        for (k, v) in changes {
            let before = seen
                .get(k.as_str())
                .copied()
                .or_else(|| pending(k))
                .unwrap_or(0);
            let after = k.len() + v.len();
            grown += after as isize - before as isize;
            seen.insert(k.as_str(), after);
        }
        grown
    }

    /// Buffer a port request of the running handler, within the event's
    /// bound on pending requests; one for the same ports and endpoints
    /// replaces the earlier one.
    pub(super) fn request_port(&mut self, request: PortRequest) -> Result<(), ModelError> {
        let same = |r: &PortRequest| r.spec == request.spec && r.endpoints == request.endpoints;
        let replaces = self.committed_ports.iter().any(same) || self.handler_ports.iter().any(same);
        let pending = self.committed_ports.len() + self.handler_ports.len();
        if !replaces && pending >= ports::MAX_PORT_REQUESTS_PER_EVENT {
            return Err(ModelError::InvalidArgument(format!(
                "{} {} refused: this event already holds {pending} port requests, the limit (MAX_PORT_REQUESTS_PER_EVENT); open a range instead of its ports one by one",
                request.tool_and_args().0,
                request.spec
            )));
        }
        ports::push(&mut self.handler_ports, request);
        Ok(())
    }

    /// Buffer a secret request of the running handler, within the event's
    /// bounds on pending requests and content.
    pub(super) fn request_secret(&mut self, request: SecretRequest) -> Result<(), ModelError> {
        let pending = self.committed_secrets.len() + self.handler_secrets.len();
        if pending >= secrets::MAX_SECRET_REQUESTS_PER_EVENT {
            return Err(ModelError::InvalidArgument(format!(
                "{} refused: this event already holds {pending} secret requests, the limit (MAX_SECRET_REQUESTS_PER_EVENT)",
                request.tool
            )));
        }
        let bytes: usize = self
            .committed_secrets
            .iter()
            .chain(&self.handler_secrets)
            .map(SecretRequest::content_bytes)
            .sum::<usize>()
            + request.content_bytes();
        if bytes > secrets::MAX_SECRET_BYTES_PER_EVENT {
            return Err(ModelError::InvalidArgument(format!(
                "{} refused: this event's pending secret content would be {bytes} bytes, over the limit of {} (MAX_SECRET_BYTES_PER_EVENT)",
                request.tool,
                secrets::MAX_SECRET_BYTES_PER_EVENT
            )));
        }
        self.handler_secrets.push(request);
        Ok(())
    }

    /// Buffer a `storage-add` of the running handler, within the event's
    /// bound on pending requests.
    pub(super) fn request_storage(&mut self, name: String, count: u32) -> Result<(), ModelError> {
        let pending = self.committed_storage.len() + self.handler_storage.len();
        if pending >= MAX_STORAGE_REQUESTS_PER_EVENT {
            return Err(ModelError::InvalidArgument(format!(
                "storage-add {name}={count} refused: this event already holds {pending} storage requests, the limit (MAX_STORAGE_REQUESTS_PER_EVENT); ask for several instances in one request"
            )));
        }
        self.handler_storage.push((name, count));
        Ok(())
    }

    /// Buffer a reboot once the hook has ended, for the running handler.
    pub(super) fn request_reboot(&mut self) {
        self.handler_reboot = true;
    }

    /// The kept relation writes, to send.
    fn take_relations(&mut self) -> Pending {
        self.committed_bytes = 0;
        std::mem::take(&mut self.committed)
    }
}

impl Model {
    /// Keep the writes of the handler that just returned.
    pub fn commit_handler(&mut self) {
        self.transaction.commit();
    }

    /// Drop the writes of a handler that trapped.
    pub fn abort_handler(&mut self) {
        self.transaction.abort();
    }

    /// Send the kept writes: one `relation-set` per databag, then each port
    /// request, then each secret request, then each storage request, in the
    /// order the handlers made them, then `juju-reboot` when a handler asked
    /// for a reboot after the hook. Juju applies them all when the hook
    /// exits 0, and none otherwise.
    pub fn flush(&mut self) -> Result<(), ModelError> {
        for ((endpoint, id, app), changes) in self.transaction.take_relations() {
            let doc = juju_json(&changes);
            let rel = rel_arg(&RelationRef { endpoint, id });
            let mut args = vec!["-r", rel.as_str()];
            if app {
                args.push("--app");
            }
            args.extend(["--file", "-"]);
            self.run("relation-set", &args, Some(&doc))
                .map_err(|e| naming("relation-set", e))?;
        }
        for request in std::mem::take(&mut self.transaction.committed_ports) {
            let (tool, args) = request.tool_and_args();
            self.run(tool, &args, None).map_err(|e| naming(tool, e))?;
        }
        for request in std::mem::take(&mut self.transaction.committed_secrets) {
            self.run_secret(Caller::Host, &request)
                .map_err(|e| naming(request.tool, e))?;
        }
        for (name, count) in std::mem::take(&mut self.transaction.committed_storage) {
            let directive = format!("{name}={count}");
            self.run("storage-add", &["--", &directive], None)
                .map_err(|e| naming("storage-add", e))?;
        }
        if std::mem::take(&mut self.transaction.committed_reboot) {
            self.run("juju-reboot", &[], None)
                .map_err(|e| naming("juju-reboot", e))?;
        }
        Ok(())
    }
}

/// A refusal at the end of the event, its message naming the tool that
/// refused (the kinds of error already name it).
fn naming(tool: &str, e: ModelError) -> ModelError {
    match e {
        ModelError::ToolFailed(f) => ModelError::ToolFailed(f),
        other => {
            let message = super::errors::describe_error(&other);
            ModelError::ToolFailed(crate::bindings::model::ToolFailure {
                tool: tool.to_string(),
                exit_code: 1,
                message: format!("{tool}: {message}"),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bindings::relations::{Host, LocalBag};
    use crate::hook_tools::ToolOutput;
    use crate::model::tests::{model, rel};

    fn bag(id: u32) -> BagRef {
        ("db".into(), id, false)
    }

    fn kv(k: &str, v: &str) -> Vec<(String, String)> {
        vec![(k.into(), v.into())]
    }

    #[test]
    fn a_handlers_writes_are_kept_or_dropped_whole() {
        let mut t = Transaction::default();
        t.write_relation(bag(1), kv("a", "1")).unwrap();
        t.commit();
        t.write_relation(bag(1), kv("b", "2")).unwrap();
        t.request_port(PortRequest {
            open: true,
            spec: "80/tcp".into(),
            endpoints: None,
        })
        .unwrap();
        t.abort();
        let mut data = Bag::from([("a".into(), "0".into()), ("z".into(), "9".into())]);
        t.overlay(&bag(1), &mut data);
        assert_eq!(
            data,
            Bag::from([("a".into(), "1".into()), ("z".into(), "9".into())])
        );
        assert!(t.committed_ports.is_empty());
        // An empty value deletes the key.
        t.write_relation(bag(1), kv("z", "")).unwrap();
        t.overlay(&bag(1), &mut data);
        assert_eq!(data, Bag::from([("a".into(), "1".into())]));
    }

    #[test]
    fn growth_counts_only_what_replaces_nothing() {
        let mut t = Transaction::default();
        t.write_relation(bag(1), kv("key", "12345")).unwrap();
        t.commit();
        assert_eq!(t.committed_bytes, 8);
        // Replacing a kept key by a shorter value shrinks the event.
        assert_eq!(t.growth(&bag(1), &kv("key", "1")), -4);
        // The same key twice in one call counts once.
        let twice = [kv("new", "1"), kv("new", "12")].concat();
        assert_eq!(t.growth(&bag(1), &twice), 5);
        // Another bag's key of the same name is growth.
        assert_eq!(t.growth(&bag(2), &kv("key", "1")), 4);
        t.write_relation(bag(2), kv("key", "1")).unwrap();
        t.abort();
        assert_eq!(t.handler_delta, 0);
        assert_eq!(t.take_relations().len(), 1);
        assert_eq!(t.committed_bytes, 0);
    }

    #[test]
    fn secret_requests_are_bounded_per_event() {
        let mut t = Transaction::default();
        let request = |content: Option<Vec<(String, String)>>| SecretRequest {
            tool: "secret-set",
            args: vec!["--".into(), "secret:x".into()],
            content,
            ..SecretRequest::default()
        };
        for _ in 0..secrets::MAX_SECRET_REQUESTS_PER_EVENT {
            t.request_secret(request(None)).unwrap();
        }
        let e = t.request_secret(request(None)).unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidArgument(m) if m.contains("MAX_SECRET_REQUESTS_PER_EVENT")),
            "{e:?}"
        );
        t.abort();
        let big = kv("abc", &"x".repeat(secrets::MAX_SECRET_BYTES_PER_EVENT));
        let e = t.request_secret(request(Some(big))).unwrap_err();
        assert!(
            matches!(&e, ModelError::InvalidArgument(m) if m.contains("MAX_SECRET_BYTES_PER_EVENT")),
            "{e:?}"
        );
    }

    #[test]
    fn flush_sends_yaml_safe_json() {
        let (mut m, calls) = model(&[
            ("relation-set", ToolOutput::ok("")),
            ("relation-ids", ToolOutput::ok(r#"["db:1"]"#)),
        ]);
        m.relation_set(
            rel(1),
            LocalBag::Unit,
            vec![("k".into(), "a\u{7f}b\u{85}c\u{ffff}".into())],
        )
        .unwrap();
        m.commit_handler();
        m.flush().unwrap();
        let calls = calls.lock().unwrap();
        let sets: Vec<_> = calls.iter().filter(|c| c.0 == "relation-set").collect();
        assert_eq!(
            sets[0].2.as_deref(),
            Some(r#"{"k":"a\u007fb\u0085c\uffff"}"#)
        );
    }
}
