//! `cargo xtask figures`: which folder to draw from and where to, checked before drawing;
//! then [`super::publish`] draws, and this prints what happened.

use crate::error::{Result, bad};
use crate::flags;
use crate::project::{BOOK_RESULTS, root};

/// Draws the figures of every experiment in `drawers`. Without options: the book's reference
/// run into `book-figures/`. With `--from DIR`, `--out DIR` is required: redrawing a scratch
/// run never replaces the book's figures unless asked in so many words (`--out
/// book-figures`). An experiment whose saved
/// output cannot be drawn keeps its previous figures; its failure is printed with file and
/// line, and the exit status is 2 (with one line on stderr).
pub fn command(o: &flags::Figures, drawers: &super::Drawers) -> Result<()> {
    let (from, out) = match (&o.from, &o.out) {
        (None, None) => (root().join(BOOK_RESULTS), root().join("book-figures")),
        (Some(_), None) => {
            return Err(bad(
                "--from needs --out DIR: without it the book's figures would be replaced \
                 (give --out book-figures to do that on purpose)",
            ));
        }
        (None, Some(out)) => (root().join(BOOK_RESULTS), out.clone()),
        (Some(from), Some(out)) => (from.clone(), out.clone()),
    };
    let r = super::publish(&from, &out, None, drawers).map_err(bad)?;
    for f in &r.drawn {
        println!("wrote {}", f.display());
    }
    for f in &r.removed {
        println!("removed {} (no longer drawn from this run)", f.display());
    }
    let done = format!(
        "{} from {} into {}",
        r.summary(),
        from.display(),
        out.display()
    );
    if r.ok() {
        eprintln!("{done}");
        Ok(())
    } else {
        // One line on stderr: what failed, then what was done.
        let msgs: Vec<String> = r
            .failed
            .iter()
            .map(|f| {
                if f.kept.is_empty() {
                    f.message.clone()
                } else {
                    format!("{} (previous figures kept: {})", f.message, f.kept.len())
                }
            })
            .collect();
        Err(bad(format!("figures: {} ({done})", msgs.join("; "))))
    }
}
