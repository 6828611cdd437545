<?php

namespace Licensing\Validation;

/**
 * Clock-tamper detection: the latest time something the server signed vouched for (the
 * `created` of verified answers, the `issued_at` of license files), kept in the cache in
 * milliseconds as the TypeScript client keeps it. The real time cannot be earlier; a clock
 * behind it by more than the tolerance has been set back.
 */
final class SignedTime
{
    public const ENTRY = SafeCache::PREFIX . 'latest-time';

    /** @var SafeCache|null */
    private $cache;
    /** @var float seconds; 0 when nothing is known */
    private $value = 0.0;
    /** @var bool */
    private $loaded = false;

    public function __construct(?SafeCache $cache)
    {
        $this->cache = $cache;
    }

    /** Seconds since the epoch; 0 when nothing is known. */
    public function get(): float
    {
        $this->load();
        return $this->value;
    }

    /** Remembers `$seconds` when it is later than what is known. */
    public function note(float $seconds): void
    {
        $this->load();
        if (!($seconds > $this->value)) {
            return;
        }
        $this->value = $seconds;
        if ($this->cache !== null) {
            $this->cache->write(self::ENTRY, (string) (int) round($seconds * 1000));
        }
    }

    private function load(): void
    {
        if ($this->loaded) {
            return;
        }
        $this->loaded = true;
        $text = $this->cache !== null ? $this->cache->read(self::ENTRY) : null;
        if ($text !== null && is_numeric($text) && is_finite((float) $text)) {
            $this->value = max($this->value, (float) $text / 1000);
        }
    }
}
