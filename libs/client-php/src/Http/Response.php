<?php

namespace Licensing\Http;

/** An HTTP answer: its status, its headers by lower-case name, and its body's bytes. */
class Response
{
    /** @var int */
    public $status;
    /** @var array<string, string> lower-case names; repeated fields joined with ", " */
    public $headers;
    /** @var string */
    public $body;

    /**
     * @param array<string, string|string[]> $headers by name, in any case
     */
    public function __construct(int $status, array $headers, string $body)
    {
        $this->status = $status;
        $this->headers = [];
        foreach ($headers as $name => $value) {
            $name = strtolower(trim((string) $name));
            $value = is_array($value) ? implode(', ', $value) : (string) $value;
            $this->headers[$name] = isset($this->headers[$name])
                ? $this->headers[$name] . ', ' . $value
                : $value;
        }
        $this->body = $body;
    }

    public function header(string $name): ?string
    {
        $name = strtolower($name);
        return isset($this->headers[$name]) ? $this->headers[$name] : null;
    }
}
