//! The code the registry generates: from one list of `field: Interface`
//! lines, the structs holding every interface's state ([`EventStates`],
//! [`InstanceStates`], [`HandlerWrites`]) and the loops over them, each
//! calling the interfaces in the list's order.
//!
//! [`EventStates`]: super::EventStates
//! [`InstanceStates`]: super::InstanceStates
//! [`HandlerWrites`]: super::HandlerWrites

/// Generate the states of the listed interfaces; invoked once, in
/// `interfaces/mod.rs`, whose names (`Interface`, `Setup`, …) it uses.
macro_rules! registry {
    ($($field:ident: $iface:ty),+ $(,)?) => {
        /// Every registered interface's state for one event.
        pub struct EventStates {
            $($field: <$iface as Interface>::Event,)+
        }

        /// Every registered interface's state for one instance: what
        /// [`HandlerState`] holds for the WIT functions.
        pub struct InstanceStates {
            $($field: <$iface as Interface>::Instance,)+
        }

        /// What one handler wrote, per interface, not yet kept.
        #[derive(Default)]
        pub struct HandlerWrites {
            $($field: <$iface as Interface>::Writes,)+
        }

        /// Every interface's instance state, each lent at most once: what
        /// a WIT function reaching several interfaces borrows them from
        /// ([`InstanceStates::split`]).
        pub struct Split<'a> {
            $($field: Option<&'a mut <$iface as Interface>::Instance>,)+
        }

        $(
            impl Holds<$iface> for EventStates {
                type State = <$iface as Interface>::Event;
                fn state(&self) -> &Self::State {
                    &self.$field
                }
                fn state_mut(&mut self) -> &mut Self::State {
                    &mut self.$field
                }
            }

            impl Holds<$iface> for InstanceStates {
                type State = <$iface as Interface>::Instance;
                fn state(&self) -> &Self::State {
                    &self.$field
                }
                fn state_mut(&mut self) -> &mut Self::State {
                    &mut self.$field
                }
            }

            impl<'a> Lends<'a, $iface> for Split<'a> {
                fn lend(&mut self) -> Option<&'a mut <$iface as Interface>::Instance> {
                    self.$field.take()
                }
            }
        )+

        impl EventStates {
            /// Every interface's state for the event `setup` describes.
            pub fn new(setup: &Setup<'_>) -> Self {
                EventStates {
                    $($field: <$iface as Interface>::event(setup),)+
                }
            }

            /// Every interface's state for the instance that declares the
            /// handlers: nothing of a live event is reachable.
            pub fn declaring(declaring: &Declaring<'_>) -> Self {
                EventStates {
                    $($field: <$iface as Interface>::declaring(declaring),)+
                }
            }

            /// Check every interface's part of `charm`; the first refusal.
            pub fn validate(charm: &CharmDir) -> Result<(), String> {
                $(<$iface as Interface>::validate(charm)?;)+
                Ok(())
            }

            /// A handler starts, with `store` as the earlier ones left it.
            pub fn begin(&mut self, store: &ScopeStore) {
                $(<$iface as Interface>::begin(&mut self.$field, store);)+
            }

            /// The states of the instance that runs `start.handler`.
            pub fn instance(self, start: &Start<'_>) -> InstanceStates {
                InstanceStates {
                    $($field: <$iface as Interface>::instance(self.$field, start),)+
                }
            }

            /// The handler returned: keep what it wrote.
            pub fn keep(&mut self, writes: HandlerWrites, to: &mut Keep<'_>) {
                $(<$iface as Interface>::keep(&mut self.$field, writes.$field, to);)+
            }

            /// The event succeeded so far: every interface sends what it
            /// held back; the first failure stops the rest.
            pub fn commit(&mut self) -> Result<(), String> {
                $(<$iface as Interface>::commit(&mut self.$field)?;)+
                Ok(())
            }
        }

        impl InstanceStates {
            /// Add every interface's WIT functions to `linker`.
            pub fn link(linker: &mut Linker<HandlerState>) -> wasmtime::Result<()> {
                $(<$iface as Interface>::link(linker)?;)+
                Ok(())
            }

            /// The instance ended: the event states back, and what the
            /// handler wrote.
            pub fn finish(self, warnings: &mut Vec<String>) -> (EventStates, HandlerWrites) {
                $(let $field = <$iface as Interface>::finish(self.$field, warnings);)+
                (
                    EventStates { $($field: $field.0,)+ },
                    HandlerWrites { $($field: $field.1,)+ },
                )
            }

            /// Lend several interfaces' states at once.
            pub fn split(&mut self) -> Split<'_> {
                Split {
                    $($field: Some(&mut self.$field),)+
                }
            }
        }
    };
}
