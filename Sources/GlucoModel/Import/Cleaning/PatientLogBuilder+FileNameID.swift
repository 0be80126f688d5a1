import Foundation

extension PatientLogBuilder {
    /// The id a file that names no patient gets from its name: the stem (the name without its
    /// extension), which must be a valid `PatientID` as it stands. A name that would need changing
    /// to be one (`John Smith.csv`, `x y z.csv`, `_x.csv`, a non-ASCII letter, more than 64
    /// characters) is refused, not rewritten: an id made from a person's name would carry it into
    /// every file and report as if it were pseudonymous, and only the data's owner can choose the id.
    ///
    /// `scrub`, the names a Dexcom Clarity preamble gives (`FirstName`, `LastName`), are taken out
    /// first, as whole words with the separator before them (after them, for the first word):
    /// `Clarity_Export_Quintanilla_Jacinta_2026-11-20` gives `Clarity_Export_2026-11-20`. Words are
    /// separated by `_`, `-`, `.` or a space; words of one letter are kept. A name still inside a
    /// word (`JacintaQ`), or nothing left, is refused too.
    /// - Throws: `InputError` naming the file, asking for another name or an import with the patient
    ///   option (only `import-data` names a file's patient; elsewhere `--patient` chooses among those read).
    static func patientID(fromFileName file: String, scrub: [String]) throws -> PatientID {
        func refuse(_ why: String) -> InputError {
            InputError(SourceLocation(file: file), "the file does not name its patient, and \(why); "
                + "rename the file to a pseudonymous id (its name without the extension is the id), "
                + "or import it with one (import-data --patient ID) and read the store (--store)")
        }
        let original = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        // Checked before any name is taken out: name@example.com is not name_example.com's
        // `_example.com` to be told apart later.
        if PatientID.looksLikeEmail(original) { throw refuse("its name looks like an e-mail address") }
        let names = Set(scrub.flatMap { $0.split(whereSeparator: isWordSeparator) }.filter { $0.count >= 2 }.map { $0.lowercased() })
        let stem = names.isEmpty ? original : withoutWords(names, in: original)
        if stem.isEmpty { throw refuse("its name is the patient's name") }
        let lowered = stem.lowercased()
        if names.contains(where: lowered.contains) { throw refuse("its name holds the patient's name") }
        do { return try PatientID(stem) } catch {
            throw refuse("its name is no usable id as it stands (\(error))")
        }
    }

    static func isWordSeparator(_ c: Character) -> Bool { c == "_" || c == "-" || c == "." || c == " " }

    /// `text` without its words equal (ignoring case) to one of `words` (lower-cased), each with the
    /// separators before it; words taken from the start take the separators after them instead, so
    /// what is left starts as `text` did.
    static func withoutWords(_ words: Set<String>, in text: String) -> String {
        // (separators before, word) pieces; a trailing separator run is a piece with no word.
        var pieces: [(separator: Substring, word: Substring)] = []
        var i = text.startIndex
        while i < text.endIndex {
            let wordStart = text[i...].firstIndex { !isWordSeparator($0) } ?? text.endIndex
            let wordEnd = text[wordStart...].firstIndex(where: isWordSeparator) ?? text.endIndex
            pieces.append((text[i..<wordStart], text[wordStart..<wordEnd]))
            i = wordEnd
        }
        let leading = pieces.first?.separator ?? ""
        var out = "", kept = false
        for piece in pieces where !words.contains(piece.word.lowercased()) {
            out += (kept ? piece.separator : leading) + piece.word
            kept = true
        }
        return out
    }
}
