// A small event reader for update stream XML that reports what PHP's expat-based xml_parser gives
// Joomla's handlers (joomla/joomla-cms libraries/src/Updater/Adapter/ExtensionAdapter.php and
// libraries/src/Updater/Update.php both use xml_parser_create('') with element/character handlers):
// names are case-folded to UPPER case (XML_OPTION_CASE_FOLDING is on by default), attribute names too,
// and character data arrives in pieces, split at entity references and at line ends, which matters
// because Joomla keeps only the LAST piece of <php_minimum> and <tag>.

export type XmlEvent =
  | { kind: 'start'; name: string; attrs: Record<string, string> }
  | { kind: 'end'; name: string }
  | { kind: 'text'; data: string };

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntity(ref: string): string {
  if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
  if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
  const value = ENTITIES[ref];
  if (value === undefined) throw new Error(`XML error: undefined entity &${ref};`);
  return value;
}

const decodeAll = (s: string): string =>
  s.replace(/&([^;&\s]+);/g, (_m, ref: string) => decodeEntity(ref));

/** Character data pieces of one text run: entity references and line ends are pieces of their own. */
function textPieces(raw: string): string[] {
  const pieces: string[] = [];
  for (const part of raw.split(/(&[^;&\s]+;|\r\n|\n|\r)/)) {
    if (part === '') continue;
    if (part.startsWith('&')) pieces.push(decodeEntity(part.slice(1, -1)));
    else if (part === '\r\n' || part === '\r') pieces.push('\n');
    else pieces.push(part);
  }
  return pieces;
}

function parseAttrs(source: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  const re = /([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/g;
  let rest = source;
  for (let m = re.exec(source); m; m = re.exec(source)) {
    // Expat normalises white space in attribute values to spaces.
    attrs[m[1]!.toUpperCase()] = decodeAll((m[3] ?? m[4]!).replace(/[\t\n\r]/g, ' '));
    rest = rest.replace(m[0], '');
  }
  if (rest.trim() !== '') throw new Error(`XML error: bad attributes "${source.trim()}"`);
  return attrs;
}

/** The events of a well-formed document; throws where xml_parse() would return false. */
export function readXmlEvents(xml: string): XmlEvent[] {
  const events: XmlEvent[] = [];
  const open: string[] = [];
  let i = 0;
  let sawRoot = false;
  while (i < xml.length) {
    const lt = xml.indexOf('<', i);
    const textEnd = lt === -1 ? xml.length : lt;
    if (textEnd > i) {
      const raw = xml.slice(i, textEnd);
      if (open.length > 0) for (const data of textPieces(raw)) events.push({ kind: 'text', data });
      else if (raw.trim() !== '') throw new Error('XML error: text outside the root element');
    }
    if (lt === -1) break;
    const closeAt = (token: string): number => {
      const at = xml.indexOf(token, lt);
      if (at === -1) throw new Error(`XML error: unclosed ${xml.slice(lt, lt + 12)}`);
      return at;
    };
    if (xml.startsWith('<!--', lt)) {
      i = closeAt('-->') + 3;
    } else if (xml.startsWith('<![CDATA[', lt)) {
      const end = closeAt(']]>');
      if (open.length === 0) throw new Error('XML error: CDATA outside the root element');
      events.push({ kind: 'text', data: xml.slice(lt + 9, end) });
      i = end + 3;
    } else if (xml.startsWith('<?', lt) || xml.startsWith('<!', lt)) {
      i = closeAt('>') + 1;
    } else if (xml.startsWith('</', lt)) {
      const end = closeAt('>');
      const name = xml
        .slice(lt + 2, end)
        .trim()
        .toUpperCase();
      if (open.pop() !== name) throw new Error(`XML error: mismatched tag </${name}>`);
      events.push({ kind: 'end', name });
      i = end + 1;
    } else {
      const end = closeAt('>');
      const body = xml.slice(lt + 1, end);
      const selfClosing = body.endsWith('/');
      const inner = selfClosing ? body.slice(0, -1) : body;
      const m = /^([^\s/>]+)([\s\S]*)$/.exec(inner);
      if (!m) throw new Error('XML error: bad tag');
      if (open.length === 0 && sawRoot) throw new Error('XML error: junk after document element');
      sawRoot = true;
      const name = m[1]!.toUpperCase();
      events.push({ kind: 'start', name, attrs: parseAttrs(m[2]!) });
      if (selfClosing) events.push({ kind: 'end', name });
      else open.push(name);
      i = end + 1;
    }
  }
  if (open.length > 0 || !sawRoot)
    throw new Error('XML error: no element found or unclosed element');
  return events;
}
