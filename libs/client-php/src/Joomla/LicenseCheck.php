<?php

namespace Licensing\Joomla;

use Licensing\Cache\Cache;
use Licensing\LicensingClient;
use Licensing\LicensingException;

/**
 * A Joomla extension's own license check: validates the Download Key the administrator entered
 * for the extension's update site (its `<dlid>`), at most once an interval, and keeps what it
 * found in a cache between requests. It needs no Joomla class: the plugin passes how to read the
 * key (see examples/joomla-plugin/ and docs/updaters/joomla.md).
 *
 * Options: `interval` (seconds between checks, default 43200 = 12 h), `retry_interval` (seconds
 * after a check the server could not answer, default 3600, at most `interval`), `cache_key`,
 * `clock` (callable(): float, seconds since the epoch), and for the message `name` (the
 * extension's name), `messages` (templates, see StatusMessage) and `date_format`
 * (callable(int): string).
 */
final class LicenseCheck
{
    public const DEFAULT_INTERVAL = 43200;
    public const DEFAULT_RETRY_INTERVAL = 3600;

    private const OPTIONS = ['interval', 'retry_interval', 'cache_key', 'clock', 'name', 'messages', 'date_format'];

    /** @var LicensingClient */
    private $client;
    /** @var Cache */
    private $cache;
    /** @var callable(): ?string */
    private $downloadKey;
    /** @var int */
    private $interval;
    /** @var int */
    private $retryInterval;
    /** @var string */
    private $cacheKey;
    /** @var callable(): float */
    private $clock;
    /** @var StatusMessage */
    private $words;

    /**
     * @param callable(): ?string $downloadKey the Download Key of the extension's update site
     * @param array<string, mixed> $options see above; a wrong one is an \InvalidArgumentException
     */
    public function __construct(LicensingClient $client, Cache $cache, callable $downloadKey, array $options = [])
    {
        $unknown = array_diff(array_keys($options), self::OPTIONS);
        if ($unknown !== []) {
            throw new \InvalidArgumentException('Unknown option: ' . implode(', ', $unknown) . '.');
        }
        $this->client = $client;
        $this->cache = $cache;
        $this->downloadKey = $downloadKey;
        $this->interval = self::seconds($options, 'interval', self::DEFAULT_INTERVAL);
        $this->retryInterval = min($this->interval, self::seconds($options, 'retry_interval', self::DEFAULT_RETRY_INTERVAL));
        $this->cacheKey = isset($options['cache_key']) ? (string) $options['cache_key'] : 'joomla_license_check';
        $clock = isset($options['clock']) ? $options['clock'] : null;
        if ($clock !== null && !is_callable($clock)) {
            throw new \InvalidArgumentException('The option clock must be a callable.');
        }
        $this->clock = $clock ?: static function (): float {
            return microtime(true);
        };
        $formatDate = isset($options['date_format']) ? $options['date_format'] : null;
        if ($formatDate !== null && !is_callable($formatDate)) {
            throw new \InvalidArgumentException('The option date_format must be a callable.');
        }
        $this->words = new StatusMessage(
            isset($options['name']) ? (string) $options['name'] : '',
            isset($options['messages']) ? (array) $options['messages'] : [],
            $formatDate
        );
    }

    /**
     * The license's state: the kept one while it is recent, else the server's answer now. A new
     * Download Key is checked at once; no key is `NO_KEY`, asking nothing.
     *
     * A check that fails is the state UNREACHABLE (or WRONG_PRODUCT): nothing is thrown for it.
     */
    public function run(): LicenseStatus
    {
        $key = trim((string) ($this->downloadKey)());
        if ($key === '') {
            return new LicenseStatus(LicenseStatus::NO_KEY);
        }
        $now = (float) ($this->clock)();
        $kept = $this->kept();
        // A clock set back before the last check would otherwise postpone the next one.
        if ($kept !== null && hash_equals($kept['key'], hash('sha256', $key))
            && $now >= $kept['checked'] && $now < $kept['next']) {
            return $kept['status'];
        }
        $status = $this->ask($key, $now);
        $wait = $status->stale || $status->state === LicenseStatus::UNREACHABLE ? $this->retryInterval : $this->interval;
        $this->keep($key, $now, $now + $wait, $status);
        return $status;
    }

    /** The administrator's message for a state, in plain words (escape it for HTML). */
    public function message(LicenseStatus $status): string
    {
        return $this->words->text($status);
    }

    /** The type for Joomla's `enqueueMessage()`: `message`, `notice`, `warning` or `error`. */
    public function messageType(LicenseStatus $status): string
    {
        return $this->words->type($status);
    }

    private function ask(string $key, float $now): LicenseStatus
    {
        try {
            $answer = $this->client->validate($key);
        } catch (LicensingException $e) {
            $state = $e->getErrorCode() === 'PRODUCT_MISMATCH'
                ? LicenseStatus::WRONG_PRODUCT
                : LicenseStatus::UNREACHABLE;
            return new LicenseStatus($state, null, null, null, false, $e->getMessage());
        }
        $status = (string) $answer->status;
        return new LicenseStatus(
            LicenseStatus::forLicenseStatus($status),
            $answer->product,
            $answer->expires_at,
            $answer->isStale() ? $answer->checkedAt() : gmdate('Y-m-d\TH:i:s\Z', (int) $now),
            $answer->isStale(),
            $status
        );
    }

    /** @return array{key: string, checked: float, next: float, status: LicenseStatus}|null */
    private function kept(): ?array
    {
        try {
            $text = $this->cache->get($this->cacheKey);
        } catch (\Exception $e) {
            return null;
        }
        $fields = $text === null ? null : json_decode($text, true);
        if (!is_array($fields) || !isset($fields['key'], $fields['checked'], $fields['next'], $fields['status'])
            || !is_string($fields['key']) || !is_array($fields['status'])) {
            return null;
        }
        $status = LicenseStatus::fromArray($fields['status']);
        if ($status === null) {
            return null;
        }
        return ['key' => $fields['key'], 'checked' => (float) $fields['checked'], 'next' => (float) $fields['next'], 'status' => $status];
    }

    private function keep(string $key, float $checked, float $next, LicenseStatus $status): void
    {
        $fields = ['key' => hash('sha256', $key), 'checked' => $checked, 'next' => $next, 'status' => $status->toArray()];
        try {
            $this->cache->set($this->cacheKey, (string) json_encode($fields, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE));
        } catch (\Exception $e) {
            // A cache that cannot be written only makes the next request check again.
        }
    }

    /** @param array<string, mixed> $options */
    private static function seconds(array $options, string $name, int $default): int
    {
        if (!isset($options[$name])) {
            return $default;
        }
        if (!is_int($options[$name]) || $options[$name] < 1) {
            throw new \InvalidArgumentException('The option ' . $name . ' must be a positive number of seconds.');
        }
        return $options[$name];
    }
}
