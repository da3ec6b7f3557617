//! `cargo xtask figures`: which folder to draw from and where to, checked before drawing.

use crate::error::{Result, bad};
use crate::flags;
use crate::project::{BOOK_RESULTS, root};

/// Draws the figures. Without options: the book's reference run into `book-figures/`. With
/// `--from DIR`, `--out DIR` is required: redrawing a scratch run never replaces the book's
/// figures unless asked in so many words (`--out book-figures`).
pub fn command(o: &flags::Figures) -> Result<()> {
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
    let files = super::draw_all(&from, &out, None).map_err(bad)?;
    for f in &files {
        println!("wrote {}", f.display());
    }
    eprintln!(
        "{} figures drawn from {} into {}",
        files.len(),
        from.display(),
        out.display()
    );
    Ok(())
}
