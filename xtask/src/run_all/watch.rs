//! One experiment's process under a watchdog: its output streamed to files (never held in
//! memory), and the whole process group ended when it runs past its time limit or prints
//! more than any experiment prints, so that `run-all` can neither hang nor fill the disk.

use std::fs::{self, File};
use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Once, mpsc};
use std::time::{Duration, Instant};

/// The most an experiment may print on stdout or on stderr. The largest real output,
/// env_scan's, is under 200 KiB; an experiment printing without end is ended here.
pub const MAX_OUTPUT: u64 = 64 << 20;

/// How an experiment's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// By itself: an exit status, or a signal it met.
    Exited(ExitStatus),
    /// Ended by the watchdog, with every process of its group, after the time limit.
    TimedOut,
    /// Ended, with every process of its group, for printing more than [`MAX_OUTPUT`].
    TooLarge,
}

/// The process group of the experiment running now (0: none), for [`on_signal`].
static RUNNING: AtomicI32 = AtomicI32::new(0);

/// Runs `cmd` with stdin empty and stdout and stderr written into the files `out` and `err`,
/// in a process group of its own (env_scan and sink_bench start children: the watchdog
/// ends them too). It is ended after `limit`, or when a file passes [`MAX_OUTPUT`], and
/// when xtask itself is ended: by Ctrl-C, `kill` or a hang-up with its whole group, by
/// SIGKILL (which no program can catch) at least the experiment itself.
/// `Err`: it could not be started (or its files could not be created).
pub fn run(cmd: &mut Command, out: &Path, err: &Path, limit: Duration) -> io::Result<End> {
    end_with_xtask();
    cmd.stdin(Stdio::null())
        .stdout(File::create(out)?)
        .stderr(File::create(err)?)
        .process_group(0);
    // SAFETY: between fork and exec the closure only calls prctl, which is async-signal-safe;
    // it asks the kernel to kill the child when its parent (this thread) dies.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let child = cmd.spawn()?;
    let group = child.id() as libc::pid_t;
    RUNNING.store(group, Ordering::SeqCst);
    let end = watch(child, group, [out, err], limit);
    RUNNING.store(0, Ordering::SeqCst);
    end
}

/// Waits for `child` (leader of `group`), ending the group after `limit` or when one of
/// `files` passes [`MAX_OUTPUT`]. A thread waits, so that the end is seen when it comes (the
/// caller times the run); this one checks the limits ten times a second.
fn watch(
    mut child: std::process::Child,
    group: libc::pid_t,
    files: [&Path; 2],
    limit: Duration,
) -> io::Result<End> {
    let t0 = Instant::now();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait()));
    loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(status) => {
                // Children it left behind go with it (the group outlives its reaped leader).
                kill_group(group);
                return Ok(End::Exited(status?));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(io::Error::other("lost the wait for the experiment"));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let too_large = files
            .iter()
            .any(|p| fs::metadata(p).is_ok_and(|m| m.len() > MAX_OUTPUT));
        if too_large || t0.elapsed() >= limit {
            kill_group(group);
            let _ = rx.recv();
            return Ok(if too_large {
                End::TooLarge
            } else {
                End::TimedOut
            });
        }
    }
}

/// Installs, once, [`on_signal`] for SIGINT, SIGTERM and SIGHUP: the experiment's own
/// process group does not receive the terminal's Ctrl-C, so xtask passes it on. A signal
/// xtask was started ignoring (`nohup`) stays ignored.
fn end_with_xtask() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: installs a handler that only calls async-signal-safe functions, or puts
            // back the ignoring that was there.
            unsafe {
                let handler = on_signal as *const () as libc::sighandler_t;
                if libc::signal(sig, handler) == libc::SIG_IGN {
                    libc::signal(sig, libc::SIG_IGN);
                }
            }
        }
    });
}

/// Ends the running experiment's group, then xtask itself by the same signal, as if it had
/// had no handler (the exit status says which signal).
extern "C" fn on_signal(sig: libc::c_int) {
    kill_group(RUNNING.load(Ordering::SeqCst));
    // SAFETY: signal and raise are async-signal-safe.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

/// Sends SIGKILL to every process of group `group` (none left: nothing happens).
fn kill_group(group: libc::pid_t) {
    if group > 1 {
        // SAFETY: kill with a negative pid signals that process group; no memory is involved.
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("watch-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        c
    }

    #[test]
    fn a_process_that_ends_is_waited_for_and_its_output_kept() {
        let d = scratch("ends");
        let (out, err) = (d.join("out"), d.join("err"));
        let end = run(
            &mut sh("echo hi; echo oops >&2; exit 3"),
            &out,
            &err,
            Duration::from_secs(60),
        );
        assert!(
            matches!(end, Ok(End::Exited(s)) if s.code() == Some(3)),
            "{end:?}"
        );
        assert_eq!(fs::read_to_string(&out).unwrap(), "hi\n");
        assert_eq!(fs::read_to_string(&err).unwrap(), "oops\n");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_hung_process_and_its_children_are_ended() {
        let d = scratch("hung");
        let (out, err, pid) = (d.join("out"), d.join("err"), d.join("pid"));
        let script = format!(
            "sleep 600 & echo $! > {}; echo started; wait",
            pid.display()
        );
        let t0 = Instant::now();
        let end = run(&mut sh(&script), &out, &err, Duration::from_millis(500)).unwrap();
        assert_eq!(end, End::TimedOut);
        assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
        assert_eq!(fs::read_to_string(&out).unwrap(), "started\n", "kept");
        let child: u32 = fs::read_to_string(&pid).unwrap().trim().parse().unwrap();
        let t0 = Instant::now();
        while crate::project::running(child, Some("sleep")) && t0.elapsed().as_secs() < 10 {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            !crate::project::running(child, Some("sleep")),
            "the child sleep {child} was ended too"
        );
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn endless_output_is_ended_not_held() {
        let d = scratch("endless");
        let (out, err) = (d.join("out"), d.join("err"));
        let end = run(&mut sh("yes"), &out, &err, Duration::from_secs(120)).unwrap();
        assert_eq!(end, End::TooLarge);
        assert!(fs::metadata(&out).unwrap().len() > MAX_OUTPUT);
        let _ = fs::remove_dir_all(&d);
    }
}
