//! Source files, byte spans and the mapping from (preprocessed) byte offsets
//! back to original `file:line:col` locations.
//!
//! Every AST node carries a [`Span`]: a file id plus a half-open byte range
//! `lo..hi` into that file's text. For a program that went through `cpp`, the
//! "file" is the preprocessed text; its [`LineMap`] (built from cpp's
//! `# N "file"` line markers) maps each preprocessed line back to the original
//! file and line, so that diagnostics point at what the user wrote.

use std::collections::HashMap;
use std::fmt;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A half-open byte range `lo..hi` in one source file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub lo: u32,
    pub hi: u32,
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}..{}", self.file.0, self.lo, self.hi)
    }
}

impl Span {
    pub fn new(file: FileId, lo: u32, hi: u32) -> Span {
        Span {
            file,
            lo,
            hi: hi.max(lo),
        }
    }
    /// The smallest span covering both `self` and `other` (same file assumed;
    /// if the files differ, `self` is returned).
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span {
            file: self.file,
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
    /// An empty span at the end of `self`.
    pub fn end(self) -> Span {
        Span {
            file: self.file,
            lo: self.hi,
            hi: self.hi,
        }
    }
    pub fn len(self) -> u32 {
        self.hi - self.lo
    }
    pub fn is_empty(self) -> bool {
        self.hi == self.lo
    }
}

/// Where one preprocessed line came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineOrigin {
    /// Index into [`LineMap::files`].
    pub file: u32,
    /// 1-based line in the original file.
    pub line: u32,
}

/// Map from lines of preprocessed text to original (file, line).
#[derive(Clone, Debug, Default)]
pub struct LineMap {
    /// Original file names, as written in cpp's line markers.
    pub files: Vec<String>,
    /// `origins[i]` is the origin of preprocessed line `i + 1` (None for lines
    /// that are cpp line markers or come from `<built-in>`/`<command-line>`).
    pub origins: Vec<Option<LineOrigin>>,
}

/// One source text known to the [`SourceMap`].
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Display name (path as given by the user).
    pub name: String,
    /// The text the lexer sees (after preprocessing, if any).
    pub text: String,
    /// Byte offset of the start of each line.
    line_starts: Vec<u32>,
    /// Present when `text` is cpp output with line markers.
    pub line_map: Option<LineMap>,
}

impl SourceFile {
    fn new(name: String, text: String, line_map: Option<LineMap>) -> SourceFile {
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push((i + 1) as u32);
            }
        }
        SourceFile {
            name,
            text,
            line_starts,
            line_map,
        }
    }

    /// 0-based line index containing byte `offset` (clamped to the text).
    fn line_index(&self, offset: u32) -> usize {
        let offset = offset.min(self.text.len() as u32);
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// Text of 0-based line `idx`, without the line terminator.
    pub fn line_text(&self, idx: usize) -> &str {
        let Some(&start) = self.line_starts.get(idx) else {
            return "";
        };
        let end = self
            .line_starts
            .get(idx + 1)
            .map(|&e| e as usize)
            .unwrap_or(self.text.len());
        let s = self.text.get(start as usize..end).unwrap_or("");
        s.trim_end_matches(['\n', '\r'])
    }
}

/// A resolved location, ready to show to a user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// Original file name.
    pub file: String,
    /// 1-based line in the original file.
    pub line: u32,
    /// 1-based column (in characters) in the line.
    pub col: u32,
    /// The source line to display (from the original file when available and
    /// identical to what the parser saw; otherwise the preprocessed line).
    pub line_text: String,
    /// True when `line_text` is the macro-expanded (preprocessed) line because
    /// it differs from the original source line.
    pub expanded: bool,
}

/// All source files of a compilation.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
    /// Contents of original files referenced by line markers, by name
    /// (None if the file could not be read).
    originals: HashMap<String, Option<SourceFile>>,
    /// Directory against which relative original file names are read.
    base_dir: Option<std::path::PathBuf>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Set the directory relative original file names (from line markers)
    /// are read from; default: the current directory.
    pub fn set_base_dir(&mut self, dir: Option<std::path::PathBuf>) {
        self.base_dir = dir;
    }

    /// Add a plain (not preprocessed) source text.
    pub fn add_file(&mut self, name: impl Into<String>, text: impl Into<String>) -> FileId {
        self.push(SourceFile::new(name.into(), text.into(), None))
    }

    /// Add preprocessed text together with its line map. The original files
    /// named in the map are read now (missing ones are tolerated).
    pub fn add_preprocessed(&mut self, name: impl Into<String>, text: impl Into<String>, map: LineMap) -> FileId {
        for f in &map.files {
            if !self.originals.contains_key(f) {
                let path = match &self.base_dir {
                    Some(b) => b.join(f),
                    None => std::path::PathBuf::from(f),
                };
                let content = std::fs::read(path)
                    .ok()
                    .map(|b| SourceFile::new(f.clone(), String::from_utf8_lossy(&b).into_owned(), None));
                self.originals.insert(f.clone(), content);
            }
        }
        self.push(SourceFile::new(name.into(), text.into(), Some(map)))
    }

    fn push(&mut self, f: SourceFile) -> FileId {
        let id = FileId(self.files.len() as u32);
        self.files.push(f);
        id
    }

    pub fn file(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    /// Text the lexer should see for `id` ("" for an unknown id).
    pub fn text(&self, id: FileId) -> &str {
        self.file(id).map(|f| f.text.as_str()).unwrap_or("")
    }

    /// The source text covered by `span` ("" if out of range).
    pub fn snippet(&self, span: Span) -> &str {
        self.text(span.file)
            .get(span.lo as usize..span.hi as usize)
            .unwrap_or("")
    }

    /// Resolve the start of `span` to an original location. Returns None for
    /// an unknown file id.
    pub fn lookup(&self, span: Span) -> Option<Location> {
        self.lookup_offset(span.file, span.lo)
    }

    /// Resolve a byte offset in file `id`.
    pub fn lookup_offset(&self, id: FileId, offset: u32) -> Option<Location> {
        let f = self.file(id)?;
        let idx = f.line_index(offset);
        let line_start = f.line_starts.get(idx).copied().unwrap_or(0);
        let pp_line = f.line_text(idx);
        let upto = (offset.saturating_sub(line_start) as usize).min(pp_line.len());
        let col = pp_line.get(..upto).map(|s| s.chars().count()).unwrap_or(upto) as u32 + 1;
        let origin = f.line_map.as_ref().and_then(|m| {
            let o = m.origins.get(idx)?.as_ref()?;
            Some((m.files.get(o.file as usize)?.clone(), o.line))
        });
        match origin {
            None => Some(Location {
                file: f.name.clone(),
                line: idx as u32 + 1,
                col,
                line_text: pp_line.to_string(),
                expanded: false,
            }),
            Some((name, line)) => {
                let orig = self
                    .originals
                    .get(&name)
                    .and_then(|o| o.as_ref())
                    .map(|of| of.line_text((line as usize).saturating_sub(1)).to_string());
                let (line_text, expanded) = match orig {
                    Some(t) if t.trim_end() == pp_line.trim_end() => (t, false),
                    Some(_) | None => (pp_line.to_string(), true),
                };
                Some(Location {
                    file: name,
                    line,
                    col,
                    line_text,
                    expanded,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_lookup() {
        let mut sm = SourceMap::new();
        let f = sm.add_file("a.p4", "ab\ncd\n\nxyz");
        let l = sm.lookup(Span::new(f, 4, 5)).unwrap();
        assert_eq!((l.line, l.col, l.line_text.as_str()), (2, 2, "cd"));
        let l = sm.lookup(Span::new(f, 7, 8)).unwrap();
        assert_eq!((l.line, l.col, l.line_text.as_str()), (4, 1, "xyz"));
        // out of range offsets clamp instead of panicking
        let l = sm.lookup(Span::new(f, 1000, 1000)).unwrap();
        assert_eq!(l.line, 4);
        assert!(sm.lookup(Span::new(FileId(7), 0, 0)).is_none());
    }
}
