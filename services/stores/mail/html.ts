/**
 * HTML safe by construction: every value put into the `markup` template is escaped by the one
 * function below, unless it is itself made by the template. A product's or buyer's name holding
 * `<script>` or a quote is shown as text, in an element or in an attribute.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** The one escape of every value: the five characters that end text or an attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => ENTITIES[character]!);
}

export type HtmlValue = SafeHtml | string | number | readonly SafeHtml[];

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map((part: SafeHtml) => part.value).join('');
  return escapeHtml(String(value));
}

/** The template tag (not named `html`, which formatters rewrite as a page): the literal parts as written, every value escaped. */
export function markup(parts: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  return new SafeHtml(parts.reduce((out, part, i) => out + render(values[i - 1]!) + part));
}
