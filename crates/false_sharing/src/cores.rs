//! Which cores the worker threads go to, and what the kernel says those cores are.
//!
//! The cores are the ones this process may run on (its affinity mask, read through
//! `measure::pin::allowed_cores`). Their order matters: a team of `n` threads takes the first
//! `n`, and a false-sharing experiment between two hardware threads of one physical core
//! (SMT siblings, which share an L1) measures something else than one between two cores.
//! So one logical CPU of every physical core comes first, then the remaining siblings.
//! The physical layout comes from `/sys/devices/system/cpu/cpuN/topology`; where the kernel
//! does not say, it is "unknown" and the order stays ascending.

use std::fs;

/// One logical CPU this process may use, with what the kernel says about its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Core {
    pub id: usize,
    /// `physical_package_id` (the socket), if the kernel reports it.
    pub package: Option<usize>,
    /// `core_id` within the package, if reported: equal ids in one package are SMT siblings.
    pub core: Option<usize>,
}

impl Core {
    /// Reads the topology of logical CPU `id` from sysfs.
    pub fn read(id: usize) -> Core {
        let read = |f: &str| {
            fs::read_to_string(format!("/sys/devices/system/cpu/cpu{id}/topology/{f}"))
                .ok()
                .and_then(|s| s.trim().parse::<usize>().ok())
        };
        Core {
            id,
            package: read("physical_package_id"),
            core: read("core_id"),
        }
    }

    /// Whether two logical CPUs are hardware threads of one physical core; `None` if unknown.
    pub fn smt_siblings(&self, other: &Core) -> Option<bool> {
        match (self.package, self.core, other.package, other.core) {
            (Some(p), Some(c), Some(q), Some(d)) => Some(self.id != other.id && p == q && c == d),
            _ => None,
        }
    }

    /// Whether two logical CPUs sit in one package (socket); `None` if unknown.
    pub fn same_package(&self, other: &Core) -> Option<bool> {
        Some(self.package? == other.package?)
    }
}

/// Orders cores so that one logical CPU of each physical core comes first (ascending), then
/// the remaining SMT siblings (ascending). Cores of unknown topology count as their own core.
pub fn spread_order(mut cores: Vec<Core>) -> Vec<Core> {
    cores.sort_by_key(|c| c.id);
    let mut first = Vec::new();
    let mut rest = Vec::new();
    let mut seen: Vec<(usize, usize)> = Vec::new();
    for c in cores {
        match (c.package, c.core) {
            (Some(p), Some(k)) if seen.contains(&(p, k)) => rest.push(c),
            (Some(p), Some(k)) => {
                seen.push((p, k));
                first.push(c);
            }
            _ => first.push(c),
        }
    }
    first.extend(rest);
    first
}

/// The cores this process may use, in [`spread_order`], at most `limit` of them.
pub fn usable(limit: Option<usize>) -> Vec<Core> {
    let mut ids = measure::pin::allowed_cores();
    if ids.is_empty() {
        // No affinity list: the threads cannot be pinned, but the count is still known.
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        ids = (0..n).collect();
    }
    let mut cores = spread_order(ids.into_iter().map(Core::read).collect());
    if let Some(l) = limit {
        cores.truncate(l);
    }
    cores
}

/// "0,1,2" for a list of core ids.
pub fn list(ids: impl IntoIterator<Item = usize>) -> String {
    ids.into_iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: usize, package: usize, core: usize) -> Core {
        Core {
            id,
            package: Some(package),
            core: Some(core),
        }
    }

    #[test]
    fn one_thread_of_each_physical_core_comes_first() {
        // A 4-thread, 2-core part where Linux numbers the siblings 0,2 and 1,3.
        let order = spread_order(vec![c(3, 0, 1), c(0, 0, 0), c(2, 0, 0), c(1, 0, 1)]);
        let ids: Vec<usize> = order.iter().map(|c| c.id).collect();
        assert_eq!(ids, vec![0, 1, 2, 3]);
        // Siblings numbered 0,1 and 2,3.
        let order = spread_order(vec![c(0, 0, 0), c(1, 0, 0), c(2, 0, 1), c(3, 0, 1)]);
        let ids: Vec<usize> = order.iter().map(|c| c.id).collect();
        assert_eq!(ids, vec![0, 2, 1, 3]);
        assert_eq!(c(0, 0, 0).smt_siblings(&c(1, 0, 0)), Some(true));
        assert_eq!(c(0, 0, 0).smt_siblings(&c(2, 0, 1)), Some(false));
        assert_eq!(c(0, 0, 0).smt_siblings(&c(5, 1, 0)), Some(false));
        assert_eq!(c(0, 0, 0).same_package(&c(5, 1, 0)), Some(false));
    }

    #[test]
    fn unknown_topology_stays_ascending_and_says_unknown() {
        let u = |id| Core {
            id,
            package: None,
            core: None,
        };
        let ids: Vec<usize> = spread_order(vec![u(2), u(0), u(1)])
            .iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(ids, vec![0, 1, 2]);
        assert_eq!(u(0).smt_siblings(&u(1)), None);
    }

    #[test]
    fn this_machine_has_at_least_one_usable_core() {
        let all = usable(None);
        assert!(!all.is_empty());
        assert_eq!(usable(Some(1)).len(), 1);
        assert_eq!(list([0, 1, 2]), "0,1,2");
    }
}
