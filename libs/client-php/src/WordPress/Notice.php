<?php

namespace Licensing\WordPress;

/** What an action on the license screen did, in plain words: an admin notice to show. */
final class Notice
{
    public const SUCCESS = 'success';
    public const ERROR = 'error';
    public const WARNING = 'warning';

    /** @var string success, error or warning (WordPress's `notice-*` classes) */
    public $type;
    /** @var string */
    public $message;

    public function __construct(string $type, string $message)
    {
        $this->type = $type;
        $this->message = $message;
    }

    public static function success(string $message): self
    {
        return new self(self::SUCCESS, $message);
    }

    public static function error(string $message): self
    {
        return new self(self::ERROR, $message);
    }

    public function isError(): bool
    {
        return $this->type === self::ERROR;
    }
}
