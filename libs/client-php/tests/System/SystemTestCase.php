<?php

namespace Licensing\Tests\System;

use Licensing\Cache\Cache;
use Licensing\Http\Transport;
use Licensing\LicensingClient;
use Licensing\LicensingException;
use PHPUnit\Framework\TestCase;

/**
 * Tests against the running system that test/client-php/php-client.test.ts boots: it makes the
 * product, plan, release and licenses through the admin API and names them in LICENSING_TEST_*
 * variables. Without LICENSING_TEST_STORE_URL these tests are skipped; with it, a missing
 * variable fails them.
 */
abstract class SystemTestCase extends TestCase
{
    private const VARIABLES = [
        'LICENSING_TEST_STORE_URL',
        'LICENSING_TEST_PRODUCT_ID',
        'LICENSING_TEST_OTHER_PRODUCT_ID',
        'LICENSING_TEST_KEYS',
        'LICENSING_TEST_LICENSE_KEY',
        'LICENSING_TEST_TRANSPORT_LICENSE_KEY',
        'LICENSING_TEST_VERSION',
        'LICENSING_TEST_PACKAGE_SHA256',
        'LICENSING_TEST_PACKAGE_SIZE',
    ];

    /** @var array<string, string> */
    private static $settings = [];

    protected function setUp(): void
    {
        if (getenv('LICENSING_TEST_STORE_URL') === false) {
            $this->markTestSkipped('No system to test against: set LICENSING_TEST_STORE_URL and the other LICENSING_TEST_* variables (test/client-php/php-client.test.ts does).');
        }
        foreach (self::VARIABLES as $name) {
            $value = getenv($name);
            if ($value === false || $value === '') {
                $this->fail($name . ' is not set, though LICENSING_TEST_STORE_URL is.');
            }
            self::$settings[$name] = $value;
        }
    }

    protected static function setting(string $name): string
    {
        return self::$settings['LICENSING_TEST_' . $name];
    }

    protected static function productId(): int
    {
        return (int) self::setting('PRODUCT_ID');
    }

    /** A client of the test product that pins the system's keys, with `$options` beside. */
    protected function client(array $options = [], ?int $productId = null): LicensingClient
    {
        return new LicensingClient(
            self::setting('STORE_URL'),
            $productId === null ? self::productId() : $productId,
            $options + ['keys' => self::setting('KEYS'), 'timeout' => 30]
        );
    }

    /** An identifier no other test uses. */
    protected static function identifier(string $what): string
    {
        return $what . '-' . bin2hex(random_bytes(4)) . '.example.com';
    }

    protected function refusal(callable $call): LicensingException
    {
        try {
            $call();
        } catch (LicensingException $refusal) {
            return $refusal;
        }
        $this->fail('No LicensingException was thrown.');
    }
}
