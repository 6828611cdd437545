<?php

namespace Licensing\Calls;

use Licensing\Cache\Cache;
use Licensing\Http\Transport;
use Licensing\Http\Transports;
use Licensing\Verification\PinnedKeys;

/**
 * The client's options checked, with their defaults: a wrong one is an
 * `\InvalidArgumentException` when the client is made, not a failure of every call.
 */
final class Settings
{
    /** Spec 9: the client appends this to the store root URL. */
    public const API_PATH = '/api/index.php/v1/licensing';
    /** Spec 8: the reference client's request timeout, in seconds. */
    public const DEFAULT_TIMEOUT = 15.0;
    /** How far the device's clock may be from the server's: 5 minutes. */
    public const DEFAULT_CLOCK_TOLERANCE = 300.0;
    /** How long the last verified validation stands in while the server cannot answer: 72 h. */
    public const DEFAULT_OFFLINE_GRACE = 259200.0;

    private const NAMES = ['timeout', 'keys', 'cache', 'offline_grace', 'clock_tolerance', 'transport', 'headers', 'clock'];

    /** @var string */
    public $apiBase;
    /** @var int */
    public $productId;
    /** @var float seconds */
    public $timeout;
    /** @var PinnedKeys|null null: answers are not verified */
    public $keys;
    /** @var Cache|null */
    public $cache;
    /** @var float seconds */
    public $offlineGrace;
    /** @var float seconds */
    public $clockTolerance;
    /** @var Transport */
    public $transport;
    /** @var array<string, string> */
    public $headers;
    /** @var callable(): float */
    public $clock;

    /**
     * @param array<string, mixed> $options
     * @throws \InvalidArgumentException naming the first option that is wrong
     */
    public function __construct(string $storeUrl, int $productId, array $options)
    {
        foreach (array_keys($options) as $name) {
            if (!in_array($name, self::NAMES, true)) {
                throw new \InvalidArgumentException(sprintf('Unknown option "%s"; the options are: %s.', $name, implode(', ', self::NAMES)));
            }
        }
        $this->apiBase = self::apiBase($storeUrl);
        if ($productId < 1) {
            throw new \InvalidArgumentException(sprintf('The product id must be a positive integer: %d.', $productId));
        }
        $this->productId = $productId;
        $this->timeout = self::seconds($options, 'timeout', self::DEFAULT_TIMEOUT, false);
        $this->clockTolerance = self::seconds($options, 'clock_tolerance', self::DEFAULT_CLOCK_TOLERANCE, true);
        $this->offlineGrace = self::seconds($options, 'offline_grace', self::DEFAULT_OFFLINE_GRACE, true);
        $this->keys = array_key_exists('keys', $options) && $options['keys'] !== null
            ? PinnedKeys::fromOption($options['keys'])
            : null;
        $this->cache = self::instance($options, 'cache', Cache::class);
        $transport = self::instance($options, 'transport', Transport::class);
        $this->transport = $transport instanceof Transport ? $transport : Transports::detect();
        $this->headers = self::headers(isset($options['headers']) ? $options['headers'] : []);
        $clock = isset($options['clock']) ? $options['clock'] : null;
        if ($clock !== null && !is_callable($clock)) {
            throw new \InvalidArgumentException('clock must be a callable that returns seconds since the epoch.');
        }
        $this->clock = $clock !== null ? $clock : static function (): float {
            return microtime(true);
        };
    }

    /** The client's clock, in seconds since the epoch. */
    public function now(): float
    {
        $clock = $this->clock;
        $now = $clock();
        if (!is_int($now) && !is_float($now)) {
            throw new \InvalidArgumentException('clock must return seconds since the epoch as a number.');
        }
        return (float) $now;
    }

    private static function apiBase(string $storeUrl): string
    {
        $url = trim($storeUrl);
        $parts = parse_url($url);
        $scheme = is_array($parts) && isset($parts['scheme']) ? strtolower($parts['scheme']) : '';
        if (!is_array($parts) || !isset($parts['host']) || $parts['host'] === '') {
            throw new \InvalidArgumentException(sprintf('The store URL is not an absolute URL: %s', $storeUrl));
        }
        if ($scheme !== 'http' && $scheme !== 'https') {
            throw new \InvalidArgumentException(sprintf('The store URL must be http or https: %s', $storeUrl));
        }
        $cut = strcspn($url, '?#');
        return rtrim(substr($url, 0, $cut), '/') . self::API_PATH;
    }

    /** @param array<string, mixed> $options */
    private static function seconds(array $options, string $name, float $default, bool $zero): float
    {
        if (!array_key_exists($name, $options) || $options[$name] === null) {
            return $default;
        }
        $value = $options[$name];
        if ((!is_int($value) && !is_float($value)) || !is_finite((float) $value) || $value < 0 || (!$zero && $value == 0)) {
            throw new \InvalidArgumentException(sprintf(
                '%s must be a %s number of seconds.',
                $name,
                $zero ? 'non-negative' : 'positive'
            ));
        }
        return (float) $value;
    }

    /**
     * @param array<string, mixed> $options
     * @return object|null
     */
    private static function instance(array $options, string $name, string $type)
    {
        if (!isset($options[$name])) {
            return null;
        }
        if (!$options[$name] instanceof $type) {
            throw new \InvalidArgumentException(sprintf('%s must be a %s.', $name, $type));
        }
        return $options[$name];
    }

    /**
     * @param mixed $headers
     * @return array<string, string>
     */
    private static function headers($headers): array
    {
        if (!is_array($headers)) {
            throw new \InvalidArgumentException('headers must be an array of header values by name.');
        }
        $checked = [];
        foreach ($headers as $name => $value) {
            if (!is_string($name) || preg_match('/^[!#$%&\'*+.^_`|~0-9A-Za-z-]+$/', $name) !== 1) {
                throw new \InvalidArgumentException(sprintf('headers: "%s" is not a header name.', (string) $name));
            }
            if (!is_scalar($value) || preg_match('/[\r\n\0]/', (string) $value) === 1) {
                throw new \InvalidArgumentException(sprintf('headers: the value of "%s" must be one line of text.', $name));
            }
            $checked[$name] = (string) $value;
        }
        return $checked;
    }
}
