/// The page around a report's sections: inline CSS for screen and print, no scripts, no
/// external references (the only URL in a report is the SVG namespace).
enum ReportPage {
    /// - Parameter paper: the `@page size` printing uses (the layout fits both sizes).
    ///   `landscape` turns the page (wide tables such as the cohort index).
    static func wrap(title: String, body: String, paper: PaperSize = .a4, landscape: Bool = false) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title))</title>
        <style>
        @page { size: \(paper.rawValue)\(landscape ? " landscape" : ""); margin: 10mm; }
        \(css)
        </style>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }

    static let css = """
    body { font-family: "DejaVu Sans", Arial, sans-serif; font-size: 14px; color: #222; margin: 16px auto; padding: 0 12px; }
    h1 { font-size: 22px; margin: 0 0 4px; overflow-wrap: anywhere; }
    #cohort td:first-child { overflow-wrap: anywhere; }
    h2 { font-size: 17px; border-bottom: 2px solid #08306b; padding-bottom: 2px; margin: 22px 0 8px; }
    h3 { font-size: 14px; margin: 12px 0 4px; }
    header p { margin: 2px 0; }
    .period { color: #444; }
    ul.glance { margin: 8px 0; padding-left: 20px; }
    ul.glance li { margin: 2px 0; }
    .note { background: #fff4e5; border-left: 4px solid #e08214; padding: 4px 8px; }
    .muted { color: #666; font-size: 12px; }
    table { border-collapse: collapse; margin: 4px 0 10px; font-size: 13px; }
    caption { text-align: left; font-weight: bold; padding: 4px 0; }
    th, td { border: 1px solid #ccc; padding: 3px 7px; vertical-align: top; }
    th { background: #eef2f7; text-align: left; }
    td.num { text-align: right; font-variant-numeric: tabular-nums; }
    td.ok { color: #1a7f1a; font-weight: bold; }
    td.bad { color: #b00020; font-weight: bold; }
    td.best { font-weight: bold; background: #eaf6ea; }
    tr.ge td { background: #fbf3ea; }
    .row { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
    .row > section { flex: 1 1 460px; }
    .charts { display: flex; flex-wrap: wrap; gap: 12px; }
    .days { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 6px; }
    svg { max-width: 100%; height: auto; }
    figure { margin: 0; }
    code { font-family: "DejaVu Sans Mono", monospace; font-size: 12px; white-space: pre-wrap; word-break: break-word; background: #f5f5f5; padding: 1px 3px; }
    dl.model { display: grid; grid-template-columns: 150px 1fr; gap: 3px 10px; margin: 4px 0 12px; }
    dl.model dt { font-weight: bold; }
    dl.model dd { margin: 0; }
    footer { margin-top: 24px; color: #666; font-size: 12px; border-top: 1px solid #ccc; padding-top: 6px; }
    .row > section:first-child { flex: 1 1 380px; }
    .row > section:last-child { flex: 0 1 300px; }
    .week { display: grid; grid-template-columns: repeat(7, minmax(0, 1fr)); gap: 3px; }
    .glance-line { margin: 4px 0; }
    tr.flagged td { background: #fdecea; }
    tr.flagged td.ok { background: #fdecea; }
    #agp-page h2 { margin: 10px 0 4px; }
    #statistics table { width: 100%; }
    .page, .appendix { max-width: 190mm; margin: 0 auto 28px; }
    .appendix { border-top: 3px double #08306b; padding-top: 6px; }
    @media screen { .table-wrap { max-width: 100%; overflow-x: auto; } }
    /* A phone: tables scroll sideways in their box, at their width rather than a word a line;
       the week strip and the daily charts take fewer columns, so their labels stay readable. */
    @media screen and (max-width: 640px) {
      body { padding: 0 6px; }
      .table-wrap > table { min-width: 100%; }
      .table-wrap th, .table-wrap td { min-width: 4.5em; }
      #cohort td:nth-child(2) { min-width: 14em; }
      .week { grid-template-columns: repeat(2, minmax(0, 1fr)); }
      .days { grid-template-columns: minmax(0, 1fr); }
      .row > section, .row > section:first-child, .row > section:last-child { flex: 1 1 100%; }
    }
    @media print {
      body { max-width: none; margin: 0; padding: 0; font-size: 10.5px; }
      .page { max-width: none; margin: 0; break-after: page; }
      .appendix { max-width: none; margin: 0; border-top: none; padding-top: 0; }
      /* The clinician pages' tables are short and kept whole; the appendix's may be pages long: a
         whole one moved to the next page left a page holding only its heading. They break between
         rows, the header row repeated on each page. */
      .day, dl.model, .page table, figure, .strip-day, tr { break-inside: avoid; }
      thead { display: table-header-group; }
      h2, h3 { break-after: avoid; }
      h1 { font-size: 17px; }
      h2 { font-size: 13px; margin: 8px 0 4px; }
      table { font-size: 10px; margin: 2px 0 6px; }
      th, td { padding: 1px 4px; }
      .muted { font-size: 9px; margin: 2px 0; }
      ul.glance { margin: 4px 0; }
      .charts { flex-wrap: nowrap; gap: 12px; }
      .charts > figure { flex: 1 1 0; min-width: 0; }
      .days { grid-template-columns: repeat(2, minmax(0, 1fr)); }
      footer { margin-top: 10px; font-size: 9px; }
      /* Letter is wider and 18 mm shorter than A4: a full-width AGP grew taller as the page shrank,
         and page 1 with its notes (sensor limits, models trained on this period) overflowed. */
      .note { font-size: 9.5px; padding: 2px 6px; margin: 3px 0; }
      #agp svg { max-height: 72mm; width: auto; display: block; margin: 0 auto; }
      /* Many notes: two columns of them, a lower AGP (PatientReport.crowding). */
      .notes.many { columns: 2; column-gap: 10px; margin: 3px 0; }
      .notes.many .note { break-inside: avoid; margin: 0 0 3px; }
      .crowded #agp svg { max-height: 50mm; }
      .packed #agp svg { max-height: 44mm; }
    }
    """
}
