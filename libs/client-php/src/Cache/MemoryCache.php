<?php

namespace Licensing\Cache;

/** A cache that lasts as long as the object: for tests, and for one long-running process. */
class MemoryCache implements Cache
{
    /** @var array<string, string> */
    private $values = [];

    public function get(string $key): ?string
    {
        return isset($this->values[$key]) ? $this->values[$key] : null;
    }

    public function set(string $key, string $value): void
    {
        $this->values[$key] = $value;
    }

    /** @return array<string, string> everything kept, by name */
    public function all(): array
    {
        return $this->values;
    }
}
