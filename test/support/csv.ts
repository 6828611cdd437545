/**
 * CSV read as RFC 4180 says, strictly, to check what the exports write: fields separated by
 * commas, lines ended by CRLF (the last one too), a quoted field's `""` one quote. Anything else
 * (a bare LF, a quote inside an unquoted field, text after a closing quote) throws.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let at = 0;
  while (at < text.length) {
    let field = '';
    if (text[at] === '"') {
      at++;
      for (;;) {
        const quote = text.indexOf('"', at);
        if (quote === -1) throw new Error('A quoted field is not closed.');
        field += text.slice(at, quote);
        at = quote + 1;
        if (text[at] !== '"') break;
        field += '"';
        at++;
      }
    } else {
      const end = text.slice(at).search(/[,\r\n"]/);
      const stop = end === -1 ? text.length : at + end;
      if (text[stop] === '"') throw new Error(`A quote inside an unquoted field at ${stop}.`);
      field = text.slice(at, stop);
      at = stop;
    }
    row.push(field);
    if (text[at] === ',') {
      at++;
    } else if (text.startsWith('\r\n', at)) {
      rows.push(row);
      row = [];
      at += 2;
    } else {
      throw new Error(`Expected a comma or CRLF at ${at}, found ${JSON.stringify(text[at])}.`);
    }
  }
  if (row.length > 0) throw new Error('The last line does not end with CRLF.');
  return rows;
}

/** The rows of a CSV with a header row, each as an object by header. */
export function csvRecords(text: string): Array<Record<string, string>> {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw new Error('No header row.');
  return rows.map((row) => {
    if (row.length !== header.length) throw new Error(`A row of ${row.length} fields.`);
    return Object.fromEntries(header.map((name, i) => [name, row[i]!]));
  });
}
