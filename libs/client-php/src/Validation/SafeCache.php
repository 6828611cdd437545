<?php

namespace Licensing\Validation;

use Licensing\Cache\Cache;

/** The caller's cache, made safe: a read that fails is an empty entry, a write that fails is lost. */
final class SafeCache
{
    /** Entry names the client uses, as the TypeScript client names them. */
    public const PREFIX = 'licensing:';

    /** @var Cache */
    private $cache;

    public function __construct(Cache $cache)
    {
        $this->cache = $cache;
    }

    public function read(string $name): ?string
    {
        try {
            $value = $this->cache->get($name);
            return is_string($value) ? $value : null;
        } catch (\Throwable $failure) {
            return null;
        }
    }

    public function write(string $name, string $value): void
    {
        try {
            $this->cache->set($name, $value);
        } catch (\Throwable $failure) {
            // A cache that cannot be written only loses what offline checks would have used.
        }
    }
}
