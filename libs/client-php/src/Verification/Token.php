<?php

namespace Licensing\Verification;

/** An RFC 8941 token, told apart from a string, which serialises in quotes. */
final class Token
{
    /** @var string */
    public $value;

    public function __construct(string $value)
    {
        $this->value = $value;
    }
}
