<?php

namespace Licensing\Tests\Joomla\Support;

use Licensing\Cache\Cache;
use Licensing\Cache\MemoryCache;
use Licensing\Joomla\LicenseCheck;
use Licensing\LicensingClient;
use Licensing\Tests\Support\FakeTransport;

/**
 * A Joomla site's side of a license check, without Joomla: the Download Key the administrator
 * entered, a clock the test moves, the plugin's cache, and a transport that answers as told.
 */
final class Site
{
    /** 15 January 2027, 08:00 UTC. */
    public const START = 1800000000.0;

    /** @var float */
    public $now = self::START;
    /** @var string */
    public $downloadKey = 'KEY-1';
    /** @var Cache */
    public $cache;
    /** @var FakeTransport */
    public $transport;

    /** @param array<int, mixed> $answers for FakeTransport */
    public function __construct(array $answers, ?Cache $cache = null)
    {
        $this->cache = $cache ?: new MemoryCache();
        $this->transport = new FakeTransport($answers);
    }

    /**
     * @param array<string, mixed> $options of LicenseCheck
     * @param array<string, mixed> $clientOptions of LicensingClient
     */
    public function check(array $options = [], array $clientOptions = []): LicenseCheck
    {
        $clock = function (): float {
            return $this->now;
        };
        // A short timeout: a failed call is not tried again after a delay.
        $client = new LicensingClient('https://shop.example.com', 42, $clientOptions + [
            'transport' => $this->transport,
            'cache' => $this->cache,
            'clock' => $clock,
            'timeout' => 0.05,
        ]);
        return new LicenseCheck($client, $this->cache, function (): string {
            return $this->downloadKey;
        }, $options + ['clock' => $clock, 'name' => 'Example']);
    }

    /** Validate's `data` for a license in this status (spec 4.2). */
    public static function validation(string $status, ?string $expiresAt = '2027-03-12T00:00:00.000Z'): array
    {
        return [
            'valid' => $status === 'active',
            'status' => $status,
            'license_key' => 'KEY-1',
            'product' => $status === 'invalid' ? null : 'Example Pro',
            'plan' => $status === 'invalid' ? null : 'Single site',
            'activation_type' => 'domain',
            'activation_limit' => 1,
            'activations_used' => 0,
            'expires_at' => $status === 'invalid' ? null : $expiresAt,
            'identifier_activated' => true,
        ];
    }

    /** An answer of validate. */
    public static function answer(string $status, ?string $expiresAt = '2027-03-12T00:00:00.000Z'): \Licensing\Http\Response
    {
        return FakeTransport::json(200, ['data' => self::validation($status, $expiresAt)]);
    }
}
