<?php

namespace Licensing\Verification;

/** An RFC 8941 byte sequence (`:base64:`), told apart from a string. */
final class Bytes
{
    /** @var string the raw bytes */
    public $value;

    public function __construct(string $value)
    {
        $this->value = $value;
    }
}
