//! [`Container`]'s calls on services, layers, the plan and checks.

use super::{
    AddLayerOptions, CheckInfo, CheckLevel, Container, LayerSource, PebbleError, Plan, ServiceInfo,
    owned, wit,
};

impl Container {
    /// The container's name (ops' `Container.name`).
    ///
    /// ```
    /// assert_eq!(wasm_charm::pebble::get_container("web").name(), "web");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether its Pebble answers now: `false` on any failure to reach it
    /// (the container is not up yet, Pebble answers an error or something
    /// that is not Pebble's; ops' `Container.can_connect`).
    ///
    /// # Panics
    ///
    /// When the container is not declared in metadata.yaml: a charm's
    /// bug, which fails the handler as ops' `Unit.get_container` raises
    /// `ModelError` for it.
    ///
    /// ```no_run
    /// use wasm_charm::prelude::*;
    ///
    /// fn web(_event: &Event) -> Outcome {
    ///     if !pebble::get_container("web").can_connect() {
    ///         return Ok(Some(Status::waiting("Waiting for the web container")));
    ///     }
    ///     Ok(None)
    /// }
    /// ```
    #[doc(alias = "system-info")]
    pub fn can_connect(&self) -> bool {
        match wit::can_connect(&self.name) {
            Ok(up) => up,
            Err(e) => panic!("wasm-charm: container {:?}: {e}", self.name),
        }
    }

    /// Add a Pebble layer labelled `label`: a [`Layer`](super::Layer) or its YAML text
    /// (ops' `Container.add_layer(label, layer, combine=…)`).
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, AddLayerOptions, Layer, Service};
    ///
    /// let layer = Layer {
    ///     services: [("web".to_string(), Service { command: "/usr/bin/web".into(), ..Default::default() })].into(),
    ///     ..Default::default()
    /// };
    /// pebble::get_container("web").add_layer("web", &layer, AddLayerOptions { combine: true })?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn add_layer<'a>(
        &self,
        label: &str,
        layer: impl Into<LayerSource<'a>>,
        options: AddLayerOptions,
    ) -> Result<(), PebbleError> {
        let layer = layer.into().to_yaml();
        wit::add_layer(&self.name, label, &layer, options.combine)
    }

    /// The combined plan (ops' `Container.get_plan`).
    ///
    /// ```no_run
    /// let plan = wasm_charm::pebble::get_container("web").get_plan()?;
    /// if let Some(web) = plan.services.get("web") {
    ///     println!("web runs {}", web.command);
    /// }
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn get_plan(&self) -> Result<Plan, PebbleError> {
        let text = wit::get_plan(&self.name)?;
        Plan::from_yaml(&text).map_err(|e| {
            PebbleError::Protocol(format!(
                "container {}: cannot read the plan Pebble gave: {e}",
                self.name
            ))
        })
    }

    /// Start the services of the plan that start by default and restart
    /// those whose definition changed, waiting for it to finish (ops'
    /// `Container.replan`).
    ///
    /// ```no_run
    /// wasm_charm::pebble::get_container("web").replan()?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn replan(&self) -> Result<(), PebbleError> {
        wit::replan(&self.name)
    }

    /// Start services, waiting for them to be started (ops'
    /// `Container.start`).
    ///
    /// ```no_run
    /// wasm_charm::pebble::get_container("web").start(&["web"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn start(&self, services: &[&str]) -> Result<(), PebbleError> {
        wit::start(&self.name, &owned(services))
    }

    /// Stop services, waiting for them to be stopped (ops'
    /// `Container.stop`).
    ///
    /// ```no_run
    /// wasm_charm::pebble::get_container("web").stop(&["web"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn stop(&self, services: &[&str]) -> Result<(), PebbleError> {
        wit::stop(&self.name, &owned(services))
    }

    /// Restart services, starting those that are stopped (ops'
    /// `Container.restart`).
    ///
    /// ```no_run
    /// wasm_charm::pebble::get_container("web").restart(&["web"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn restart(&self, services: &[&str]) -> Result<(), PebbleError> {
        wit::restart(&self.name, &owned(services))
    }

    /// The plan's services and their state; all of them when `names` is
    /// empty (ops' `Container.get_services`).
    ///
    /// ```no_run
    /// let services = wasm_charm::pebble::get_container("web").get_services(&["web"])?;
    /// let running = services.iter().all(|s| s.is_running());
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn get_services(&self, names: &[&str]) -> Result<Vec<ServiceInfo>, PebbleError> {
        wit::get_services(&self.name, &owned(names))
    }

    /// The plan's health checks; all of them when `names` is empty, only
    /// those of `level` when given (ops' `Container.get_checks`).
    ///
    /// ```no_run
    /// use wasm_charm::pebble::{self, CheckLevel};
    ///
    /// let checks = pebble::get_container("web").get_checks(&[], Some(CheckLevel::Ready))?;
    /// let down: Vec<&str> = checks.iter().filter(|c| !c.is_up()).map(|c| c.name.as_str()).collect();
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn get_checks(
        &self,
        names: &[&str],
        level: Option<CheckLevel>,
    ) -> Result<Vec<CheckInfo>, PebbleError> {
        wit::get_checks(&self.name, &owned(names), level)
    }

    /// Start the services the plan says start (`startup: enabled`),
    /// leaving running ones as they are, and wait for them (ops'
    /// `Container.autostart`).
    ///
    /// ```no_run
    /// wasm_charm::pebble::get_container("web").autostart()?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "autostart_services")]
    pub fn autostart(&self) -> Result<(), PebbleError> {
        wit::autostart(&self.name)
    }

    /// Send `signal` (its name, as `"SIGHUP"`) to the named running
    /// services (ops' `Container.send_signal`; Pebble's `POST /v1/signals`).
    /// A name that is not `SIG` and upper-case letters or digits is
    /// [`PebbleError::Invalid`]; a service not running is Pebble's error.
    ///
    /// ```no_run
    /// wasm_charm::pebble::get_container("web").send_signal("SIGHUP", &["web"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    #[doc(alias = "signals")]
    pub fn send_signal(&self, signal: &str, services: &[&str]) -> Result<(), PebbleError> {
        wit::send_signal(&self.name, signal, &owned(services))
    }

    /// Start the named checks: those that were stopped and now run (ops'
    /// `Container.start_checks`; Pebble's `POST /v1/checks`).
    ///
    /// ```no_run
    /// let started = wasm_charm::pebble::get_container("web").start_checks(&["ready"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn start_checks(&self, checks: &[&str]) -> Result<Vec<String>, PebbleError> {
        wit::start_checks(&self.name, &owned(checks))
    }

    /// Stop the named checks: those that ran and now are stopped (ops'
    /// `Container.stop_checks`).
    ///
    /// ```no_run
    /// let stopped = wasm_charm::pebble::get_container("web").stop_checks(&["ready"])?;
    /// # Ok::<(), wasm_charm::Error>(())
    /// ```
    pub fn stop_checks(&self, checks: &[&str]) -> Result<Vec<String>, PebbleError> {
        wit::stop_checks(&self.name, &owned(checks))
    }
}
