<?php

namespace Licensing\Result;

/**
 * A payload of the API read into public properties named as the spec's fields. A field the
 * answer lacks keeps its default; fields this client does not name stay in `toArray()`.
 */
abstract class Result
{
    /** @var array<string, mixed> the payload as the server sent it */
    private $payload;

    /**
     * @param array<string, mixed> $payload the `data` object of the answer
     */
    public function __construct(array $payload)
    {
        $this->payload = $payload;
        foreach (array_keys(get_object_vars($this)) as $name) {
            if ($name !== 'payload' && array_key_exists($name, $payload)) {
                $this->{$name} = $payload[$name];
            }
        }
    }

    /** @return array<string, mixed> the payload: every field the server sent, and the named ones */
    public function toArray(): array
    {
        $fields = $this->payload;
        // Seen from this class: the public fields, and of the private ones only `payload`.
        foreach (get_object_vars($this) as $name => $value) {
            if ($name !== 'payload') {
                $fields[$name] = $value;
            }
        }
        return $fields;
    }
}
