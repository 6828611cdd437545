<?php

namespace Licensing\Calls;

/** One HTTP call of the JSON API: what is sent, and whether it may be repeated. */
final class Operation
{
    /** @var string */
    public $method;
    /** @var string */
    public $url;
    /** @var string|null */
    public $body;
    /** @var bool safe to repeat: retried after a transient failure */
    public $repeatable;

    public function __construct(string $method, string $url, ?string $body, bool $repeatable)
    {
        $this->method = $method;
        $this->url = $url;
        $this->body = $body;
        $this->repeatable = $repeatable;
    }

    /**
     * A form POST of the API: `$fields` and the product id, empty ones left out.
     *
     * @param array<string, string|int|null> $fields
     */
    public static function form(string $url, array $fields, int $productId, bool $repeatable): self
    {
        $fields['product_id'] = $productId;
        return new self('POST', $url, self::encode($fields, PHP_QUERY_RFC1738), $repeatable);
    }

    /**
     * A GET of `$url` with the non-empty `$query` fields.
     *
     * @param array<string, string|int|null> $query
     */
    public static function get(string $url, array $query, bool $repeatable): self
    {
        $encoded = self::encode($query, PHP_QUERY_RFC3986);
        return new self('GET', $encoded === '' ? $url : $url . '?' . $encoded, null, $repeatable);
    }

    /**
     * @param array<string, string|int|null> $fields
     */
    public static function encode(array $fields, int $type): string
    {
        $kept = [];
        foreach ($fields as $name => $value) {
            if ($value !== null && $value !== '') {
                $kept[$name] = (string) $value;
            }
        }
        return http_build_query($kept, '', '&', $type);
    }
}
