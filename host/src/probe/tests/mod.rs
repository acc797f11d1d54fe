//! Probe tests. The kinds run against real things each test starts and stops
//! (a TCP listener, an HTTP server, a process), and `systemctl` against the
//! stand-in in tests/probe-fixtures (no systemd runs where the tests run).
//! Grace, retries and back-off run on a [`ManualClock`](super::ManualClock).

mod interface;
mod kinds;
mod retries;
mod state;
mod support;
