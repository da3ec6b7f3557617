//! CSV as xtask writes it (the saved `<experiment>.<block>.csv`, `compare.csv`, `noise.csv`),
//! through the `csv` crate: fields quoted (RFC 4180) only where they hold a comma, a quote or
//! a line break, lines ending in `\n`.

use measure::data::{Block, Value, format_num};

/// `records` as CSV text, one line each.
pub fn lines<R, F>(records: impl IntoIterator<Item = R>) -> String
where
    R: IntoIterator<Item = F>,
    F: AsRef<[u8]>,
{
    // Into memory, records of any length: writing cannot fail, and `&str` fields stay UTF-8.
    let mut w = csv::WriterBuilder::new()
        .flexible(true)
        .from_writer(Vec::new());
    for r in records {
        w.write_record(r).expect("CSV into memory");
    }
    String::from_utf8(w.into_inner().expect("CSV into memory")).expect("CSV of UTF-8 fields")
}

/// A `#DATA` block as CSV: a header row of column names, then its rows, `NA` as an empty cell.
pub fn block(b: &Block) -> String {
    let header = b.columns.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    let rows = b.rows.iter().map(|r| {
        r.iter()
            .map(|v| match v {
                Value::Num(x) => format_num(*x),
                Value::Text(t) => t.clone(),
                Value::Missing => String::new(),
            })
            .collect::<Vec<_>>()
    });
    lines(std::iter::once(header).chain(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_with_missing_cells() {
        let f = measure::data::parse(
            "#DATA-BEGIN latency\n#COLUMNS kib random_ns where:text\n\
             #DATA 4 1.4021 L1d\n#DATA 8 NA main_memory\n#DATA-END\n",
        )
        .unwrap();
        assert_eq!(
            block(&f.blocks[0]),
            "kib,random_ns,where\n4,1.4021,L1d\n8,,main_memory\n"
        );
    }

    #[test]
    fn fields_are_quoted_only_where_they_must_be() {
        let t = lines([["a,b", "say \"hi\"", "plain", "two\nlines", " outer "]]);
        assert_eq!(
            t,
            "\"a,b\",\"say \"\"hi\"\"\",plain,\"two\nlines\", outer \n"
        );
        assert_eq!(lines([["x", ""], ["", "y"]]), "x,\n,y\n");
    }
}
