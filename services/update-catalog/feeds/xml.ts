/**
 * XML text and attribute values, escaped: every feed builds its XML with `xml` below, so no value
 * a seller or a caller entered can end an element or an attribute early.
 */
const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Characters XML 1.0 cannot carry at all, even escaped (its Char production). */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export function escapeXml(value: string | number): string {
  return String(value)
    .replace(NOT_XML, '\uFFFD')
    .replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A fragment already escaped, which `xml` inserts as it is. */
export class XmlFragment {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type XmlValue = string | number | XmlFragment | readonly XmlFragment[] | null | undefined;

/** A template whose every value is escaped, except fragments made by `xml` itself. */
export function xml(strings: TemplateStringsArray, ...values: XmlValue[]): XmlFragment {
  let text = strings[0]!;
  values.forEach((value, i) => {
    text += render(value) + strings[i + 1]!;
  });
  return new XmlFragment(text);
}

function render(value: XmlValue): string {
  if (value === null || value === undefined) return '';
  if (value instanceof XmlFragment) return value.text;
  if (Array.isArray(value)) return value.map((v: XmlFragment) => v.text).join('');
  return escapeXml(value as string | number);
}

/**
 * A CDATA section of `value`: its characters reach an expat reader in one piece, where the
 * entity references of escaped text would split it (Joomla's changelog keeps each piece of an
 * `<item>` as an item of its own). A `]]>` is split across two sections.
 */
export function cdata(value: string): XmlFragment {
  const text = value.replace(NOT_XML, '\uFFFD').split(']]>').join(']]]]><![CDATA[>');
  return new XmlFragment(`<![CDATA[${text}]]>`);
}
