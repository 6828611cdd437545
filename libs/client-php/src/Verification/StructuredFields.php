<?php

namespace Licensing\Verification;

/**
 * The part of RFC 8941 that message signatures use, as libs/signatures/structured-fields.ts
 * reads and writes it: dictionaries whose members are inner lists or items with parameters.
 * Strict: a field that is not well formed is refused (null), never read in part.
 *
 * A member is `['value' => bare item, 'params' => [[key, value], ...]]` for an item, or
 * `['items' => [item, ...], 'params' => ...]` for an inner list. Bare items are strings, ints,
 * bools, `Token` and `Bytes`.
 */
final class StructuredFields
{
    private const KEY = '/\G[a-z*][a-z0-9_\-.*]*/';
    private const TOKEN = '/\G[A-Za-z*][!#$%&\'*+\-.^_`|~0-9A-Za-z:\/]*/';
    private const INTEGER = '/\G-?[0-9]{1,15}/';

    /** @var string */
    private $text;
    /** @var int */
    private $at = 0;

    private function __construct(string $text)
    {
        $this->text = $text;
    }

    /** @return array<string, array<string, mixed>>|null the members by key */
    public static function parseDictionary(string $field): ?array
    {
        return (new self(trim($field)))->dictionary();
    }

    /** @param array<string, mixed> $member */
    public static function isInnerList(array $member): bool
    {
        return array_key_exists('items', $member);
    }

    /** @param mixed $value */
    public static function serializeBareItem($value): string
    {
        if (is_bool($value)) {
            return $value ? '?1' : '?0';
        }
        if (is_int($value)) {
            return (string) $value;
        }
        if ($value instanceof Token) {
            return $value->value;
        }
        if ($value instanceof Bytes) {
            return ':' . base64_encode($value->value) . ':';
        }
        return '"' . preg_replace('/([\\\\"])/', '\\\\$1', (string) $value) . '"';
    }

    /** @param array<int, array{0: string, 1: mixed}> $params */
    public static function serializeParameters(array $params): string
    {
        $out = '';
        foreach ($params as $param) {
            $out .= $param[1] === true ? ';' . $param[0] : ';' . $param[0] . '=' . self::serializeBareItem($param[1]);
        }
        return $out;
    }

    /** @param array<string, mixed> $item */
    public static function serializeItem(array $item): string
    {
        return self::serializeBareItem($item['value']) . self::serializeParameters($item['params']);
    }

    /** @param array<string, mixed> $list */
    public static function serializeInnerList(array $list): string
    {
        return '(' . implode(' ', array_map([self::class, 'serializeItem'], $list['items'])) . ')'
            . self::serializeParameters($list['params']);
    }

    private function done(): bool
    {
        return $this->at >= strlen($this->text);
    }

    private function peek(): string
    {
        return $this->done() ? '' : $this->text[$this->at];
    }

    private function skip(string $chars): void
    {
        while (!$this->done() && strpos($chars, $this->peek()) !== false) {
            $this->at++;
        }
    }

    private function take(string $pattern): ?string
    {
        if (preg_match($pattern, $this->text, $match, 0, $this->at) !== 1) {
            return null;
        }
        $this->at += strlen($match[0]);
        return $match[0];
    }

    /** @return array<string, array<string, mixed>>|null */
    private function dictionary(): ?array
    {
        $members = [];
        $this->skip(' ');
        while (!$this->done()) {
            $key = $this->take(self::KEY);
            if ($key === null) {
                return null;
            }
            if ($this->peek() === '=') {
                $this->at++;
                $member = $this->peek() === '(' ? $this->innerList() : $this->item();
            } else {
                $params = $this->parameters();
                $member = $params === null ? null : ['value' => true, 'params' => $params];
            }
            if ($member === null) {
                return null;
            }
            // A key seen again replaces its value but keeps its place, as a Map does.
            $members[$key] = $member;
            $this->skip(" \t");
            if ($this->done()) {
                return $members;
            }
            if ($this->peek() !== ',') {
                return null;
            }
            $this->at++;
            $this->skip(" \t");
            if ($this->done()) {
                return null;
            }
        }
        return $members;
    }

    /** @return array<string, mixed>|null */
    private function innerList(): ?array
    {
        $this->at++;
        $items = [];
        while (true) {
            $this->skip(' ');
            if ($this->peek() === ')') {
                $this->at++;
                $params = $this->parameters();
                return $params === null ? null : ['items' => $items, 'params' => $params];
            }
            $item = $this->item();
            if ($item === null) {
                return null;
            }
            $items[] = $item;
            if ($this->peek() !== ' ' && $this->peek() !== ')') {
                return null;
            }
        }
    }

    /** @return array<string, mixed>|null */
    private function item(): ?array
    {
        $ok = true;
        $value = $this->bareItem($ok);
        if (!$ok) {
            return null;
        }
        $params = $this->parameters();
        return $params === null ? null : ['value' => $value, 'params' => $params];
    }

    /** @return array<int, array{0: string, 1: mixed}>|null */
    private function parameters(): ?array
    {
        $params = [];
        while ($this->peek() === ';') {
            $this->at++;
            $this->skip(' ');
            $key = $this->take(self::KEY);
            if ($key === null) {
                return null;
            }
            $value = true;
            if ($this->peek() === '=') {
                $this->at++;
                $ok = true;
                $value = $this->bareItem($ok);
                if (!$ok) {
                    return null;
                }
            }
            $params = array_values(array_filter($params, static function (array $param) use ($key): bool {
                return $param[0] !== $key;
            }));
            $params[] = [$key, $value];
        }
        return $params;
    }

    /** @return mixed the bare item; `$ok` false when there is none */
    private function bareItem(bool &$ok)
    {
        $first = $this->peek();
        if ($first === '"') {
            return $this->orFail($this->quoted(), $ok);
        }
        if ($first === ':') {
            return $this->orFail($this->bytes(), $ok);
        }
        if ($first === '?') {
            $flag = $this->take('/\G\?[01]/');
            return $flag === null ? $this->orFail(null, $ok) : $flag === '?1';
        }
        if ($first === '-' || ($first !== '' && ctype_digit($first))) {
            $digits = $this->take(self::INTEGER);
            $next = $this->peek();
            if ($digits === null || $next === '.' || ($next !== '' && ctype_digit($next))) {
                return $this->orFail(null, $ok);
            }
            return (int) $digits;
        }
        $token = $this->take(self::TOKEN);
        return $token === null ? $this->orFail(null, $ok) : new Token($token);
    }

    /**
     * @param mixed $value
     * @return mixed
     */
    private function orFail($value, bool &$ok)
    {
        if ($value === null) {
            $ok = false;
        }
        return $value;
    }

    private function quoted(): ?string
    {
        $this->at++;
        $value = '';
        while (!$this->done()) {
            $char = $this->text[$this->at++];
            if ($char === '\\') {
                $escaped = $this->done() ? '' : $this->text[$this->at++];
                if ($escaped !== '"' && $escaped !== '\\') {
                    return null;
                }
                $value .= $escaped;
            } elseif ($char === '"') {
                return $value;
            } elseif ($char < ' ' || $char > '~') {
                return null;
            } else {
                $value .= $char;
            }
        }
        return null;
    }

    private function bytes(): ?Bytes
    {
        $this->at++;
        $end = strpos($this->text, ':', $this->at);
        if ($end === false) {
            return null;
        }
        $encoded = substr($this->text, $this->at, $end - $this->at);
        $this->at = $end + 1;
        if (preg_match('#^[A-Za-z0-9+/]*={0,2}$#', $encoded) !== 1 || strlen($encoded) % 4 !== 0) {
            return null;
        }
        $raw = Base64::decode($encoded);
        return $raw === null ? null : new Bytes($raw);
    }
}
