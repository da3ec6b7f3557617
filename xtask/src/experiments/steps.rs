//! The steps some experiments take beyond their run, named by their descriptors in
//! [`super::ALL`]: branch's clock-free check by callgrind after its run, sink_bench's machine
//! code listing after its run and its summary when a run is published.

use crate::figures::Saved;
use std::fs;
use std::path::Path;

/// What a step after a run found: nothing to say, a note for the summary, or a reason to
/// count the run as failed (its status).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum After {
    Quiet,
    Note(String),
    Fail(String),
}

/// After a good branch run: the clock-free check of what branch measured (callgrind's branch
/// simulator, [`crate::verify`]), saved as `branch.verify.txt`. A missing valgrind is a note,
/// not a failure; a simulation that contradicts the experiment fails the run.
pub fn verify_branch(bins: &Path, dir: &Path) -> After {
    use crate::verify::Verdict;
    let opts = crate::flags::Verify {
        n: crate::flags::VERIFY_N.1,
        bin: Some(bins.join(::branch::schema::EXPERIMENT)),
    };
    match crate::verify::run(&opts) {
        Ok(report) => {
            let _ = fs::write(dir.join("branch.verify.txt"), &report.text);
            match report.verdict {
                Verdict::Skipped(why) => {
                    After::Note(format!("verify: skipped ({why}); no branch simulation"))
                }
                Verdict::Agrees => After::Note(
                    "verify: callgrind's branch simulation agrees (branch.verify.txt)".into(),
                ),
                Verdict::Contradicts => After::Fail(
                    "failed (the branch simulation contradicts it: branch.verify.txt)".into(),
                ),
            }
        }
        Err(e) => After::Note(format!("verify: could not run: {e}")),
    }
}

/// After a sink_bench run: the three timing functions' machine code, read back from the
/// binary and checked, saved as `sink_bench.asm.txt` on every run (the report prints the
/// listings only with `--show-asm`). A file that cannot be written is a note.
pub fn sink_bench_listing(bins: &Path, dir: &Path) -> After {
    use ::sink_bench::asm;
    let bin = bins.join(::sink_bench::schema::EXPERIMENT);
    let text = asm::listing_text(&bin, &asm::CodeCheck::of(&bin));
    let p = dir.join(asm::LISTING_FILE);
    match fs::write(&p, text) {
        Ok(()) => After::Quiet,
        Err(e) => After::Note(format!("cannot write {}: {e}", p.display())),
    }
}

/// Writes `sink_bench.summary.md` beside a good sink_bench output in `dir`, built from the
/// saved output by [`crate::sink_bench`] (the text only for the line numbers in its messages).
pub fn sink_bench_summary(dir: &Path, saved: &Saved) -> Result<(), String> {
    use crate::sink_bench::SUMMARY_FILE;
    use ::sink_bench::schema::EXPERIMENT;
    let md = match saved.run(EXPERIMENT) {
        Some(f) => fs::read_to_string(dir.join(format!("{EXPERIMENT}.txt")))
            .map_err(|e| e.to_string())
            .and_then(|t| crate::sink_bench::summary_md(&t, f)),
        None => Err(saved
            .broken
            .get(EXPERIMENT)
            .map_or_else(|| "no saved output".to_string(), |b| b.why.clone())),
    };
    md.and_then(|md| fs::write(dir.join(SUMMARY_FILE), md).map_err(|e| e.to_string()))
        .map_err(|e| format!("{SUMMARY_FILE} not written: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sink_bench_s_listing_is_saved_even_when_it_cannot_be_read() {
        use std::os::unix::fs::PermissionsExt;
        let d = std::env::temp_dir().join(format!("steps-asm-{}", std::process::id()));
        let (bins, out) = (d.join("bin"), d.join("out"));
        fs::create_dir_all(&bins).unwrap();
        fs::create_dir_all(&out).unwrap();
        // A script has no symbols: the file still comes, and says why there is no listing.
        let p = bins.join("sink_bench");
        fs::write(&p, "#!/bin/sh\nexit 0\n").unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(sink_bench_listing(&bins, &out), After::Quiet);
        let text = fs::read_to_string(out.join("sink_bench.asm.txt")).unwrap();
        assert!(text.contains("shape check: skipped: "), "{text}");
        // A folder that cannot be written to gives a note, not a failure.
        let gone = d.join("no-such-folder");
        let note = sink_bench_listing(&bins, &gone);
        assert!(
            matches!(&note, After::Note(n) if n.contains("cannot write")),
            "{note:?}"
        );
        let _ = fs::remove_dir_all(&d);
    }
}
