//! Pebble's notices (`GET /v1/notices`): [`Container::get_notices`],
//! [`Container::get_notice`], and the notice of a `pebble-custom-notice`
//! event ([`NoticeEvent::notice`]).

use std::time::Duration;

use super::{Container, PebbleError, get_container, wit};
use crate::event::NoticeEvent;

/// A Pebble notice (ops' `pebble.Notice`): times are RFC 3339 text as
/// Pebble gives them, `last_data` sorted by key.
///
/// ```
/// use wasm_charm::pebble::Notice;
///
/// let notice = Notice {
///     id: "4".into(), user_id: None, type_: "custom".into(), key: "example.com/db".into(),
///     first_occurred: "2026-07-01T10:00:00Z".into(), last_occurred: "2026-07-01T10:00:00Z".into(),
///     last_repeated: "2026-07-01T10:00:00Z".into(), occurrences: 1,
///     last_data: vec![("ready".into(), "yes".into())],
///     repeat_after_ms: None, expire_after_ms: Some(3_600_000),
/// };
/// assert_eq!(notice.data("ready"), Some("yes"));
/// ```
pub use crate::__bindings::wasm_charm::charm::pebble::Notice;
/// Which notices [`Container::get_notices`] reads (ops' `types=` and
/// `keys=`): those of any of `types` and any of `keys`; all when empty.
///
/// ```
/// use wasm_charm::pebble::NoticeFilter;
///
/// let custom = NoticeFilter { types: vec!["custom".into()], ..Default::default() };
/// ```
pub use crate::__bindings::wasm_charm::charm::pebble::NoticeFilter;

impl Notice {
    /// The value of `key` in the data of its last occurrence (ops'
    /// `notice.last_data[key]`).
    ///
    /// ```
    /// # let notice = wasm_charm::pebble::Notice { id: "1".into(), user_id: None, type_: "custom".into(), key: "k".into(), first_occurred: String::new(), last_occurred: String::new(), last_repeated: String::new(), occurrences: 1, last_data: vec![("a".into(), "1".into())], repeat_after_ms: None, expire_after_ms: None };
    /// assert_eq!(notice.data("a"), Some("1"));
    /// assert_eq!(notice.data("b"), None);
    /// ```
    #[doc(alias = "last_data")]
    pub fn data(&self, key: &str) -> Option<&str> {
        self.last_data
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// How long after its last repeat before it repeats again, if set (ops'
    /// `repeat_after`).
    ///
    /// ```
    /// # let notice = wasm_charm::pebble::Notice { id: "1".into(), user_id: None, type_: "custom".into(), key: "k".into(), first_occurred: String::new(), last_occurred: String::new(), last_repeated: String::new(), occurrences: 1, last_data: vec![], repeat_after_ms: Some(1500), expire_after_ms: None };
    /// assert_eq!(notice.repeat_after(), Some(std::time::Duration::from_millis(1500)));
    /// ```
    pub fn repeat_after(&self) -> Option<Duration> {
        self.repeat_after_ms.map(Duration::from_millis)
    }

    /// How long after its last occurrence before Pebble drops it, if set
    /// (ops' `expire_after`).
    ///
    /// ```
    /// # let notice = wasm_charm::pebble::Notice { id: "1".into(), user_id: None, type_: "custom".into(), key: "k".into(), first_occurred: String::new(), last_occurred: String::new(), last_repeated: String::new(), occurrences: 1, last_data: vec![], repeat_after_ms: None, expire_after_ms: None };
    /// assert_eq!(notice.expire_after(), None);
    /// ```
    pub fn expire_after(&self) -> Option<Duration> {
        self.expire_after_ms.map(Duration::from_millis)
    }
}

impl Container {
    /// The notices `filter` selects (ops' `Container.get_notices`).
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, NoticeFilter};
    ///
    /// let filter = NoticeFilter { keys: vec!["example.com/db-ready".into()], ..Default::default() };
    /// for notice in pebble::get_container("web").get_notices(&filter)? {
    ///     wasm_charm::log::info(format!("{} occurred {} times", notice.key, notice.occurrences));
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "notices")]
    pub fn get_notices(&self, filter: &NoticeFilter) -> Result<Vec<Notice>, PebbleError> {
        wit::get_notices(&self.name, filter)
    }

    /// The notice of Pebble's id `id` (ops' `Container.get_notice`); an
    /// [`Api`](PebbleError::Api) 404 when there is none.
    ///
    /// ```no_run
    /// let notice = wasm_charm::pebble::get_container("web").get_notice("4")?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn get_notice(&self, id: &str) -> Result<Notice, PebbleError> {
        wit::get_notice(&self.name, id)
    }
}

impl NoticeEvent {
    /// The event's notice, read from its container's Pebble (ops'
    /// `PebbleCustomNoticeEvent.notice`, which loads itself the same way
    /// when a field beyond id, type and key is read).
    ///
    /// ```no_run
    /// use wasm_charm::prelude::*;
    ///
    /// fn notice(event: &Event) -> Outcome {
    ///     if let Event::PebbleCustomNotice(n) = event {
    ///         let notice = n.notice()?;
    ///         if notice.data("ready") == Some("yes") {
    ///             log::info(format!("{} is ready", n.key));
    ///         }
    ///     }
    ///     Ok(None)
    /// }
    /// ```
    pub fn notice(&self) -> Result<Notice, PebbleError> {
        get_container(&self.container).get_notice(&self.id)
    }

    /// The value of `key` in the data of the notice's last occurrence: a
    /// shorthand for `notice()?.data(key)`.
    ///
    /// ```no_run
    /// # fn f(n: &wasm_charm::NoticeEvent) -> Result<(), wasm_charm::Error> {
    /// let path = n.data("path")?.unwrap_or_default();
    /// # Ok(()) }
    /// ```
    #[doc(alias = "get_data")]
    pub fn data(&self, key: &str) -> Result<Option<String>, PebbleError> {
        Ok(self.notice()?.data(key).map(str::to_string))
    }
}
