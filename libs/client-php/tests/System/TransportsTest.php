<?php

namespace Licensing\Tests\System;

use Licensing\Cache\MemoryCache;
use Licensing\Http\CurlTransport;
use Licensing\Http\Response;
use Licensing\Http\StreamTransport;
use Licensing\Http\Transport;
use Licensing\LicensingException;

/**
 * Each transport against the real system, answers verified with its keys; the offline grace
 * on a real signed answer; a license file the real checkout issues, checked offline.
 */
final class TransportsTest extends SystemTestCase
{
    /** @return array<string, array{0: Transport}> */
    public function transports(): array
    {
        return ['curl' => [new CurlTransport()], 'streams' => [new StreamTransport()]];
    }

    /** @dataProvider transports */
    public function testEveryCallWorksOverTheTransport(Transport $transport): void
    {
        $client = $this->client(['transport' => $transport]);
        $key = self::setting('TRANSPORT_LICENSE_KEY');
        $host = self::identifier('transport');
        $this->assertSame($host, $client->activate($key, $host)->identifier);
        $this->assertTrue($client->validate($key, $host)->identifier_activated);
        $this->assertSame(self::setting('VERSION'), $client->checkForUpdate($key)->version);
        $this->assertSame($host, $client->deactivate($key, $host)->identifier);
        $refusal = $this->refusal(function () use ($client) {
            $client->activate('0123456789abcdef0123456789abcdef', 'example.com');
        });
        $this->assertSame('LICENSE_INVALID', $refusal->getErrorCode());
    }

    public function testWhenTheServerCannotBeReachedTheLastVerifiedValidationAnswers(): void
    {
        $down = false;
        $curl = new CurlTransport();
        $transport = new class($curl, $down) implements Transport {
            /** @var Transport */
            private $inner;
            /** @var bool */
            private $down;

            public function __construct(Transport $inner, bool &$down)
            {
                $this->inner = $inner;
                $this->down = &$down;
            }

            public function send(string $method, string $url, array $headers, ?string $body, float $timeout): Response
            {
                if ($this->down) {
                    throw new LicensingException(LicensingException::CONNECTION_ERROR, 'Connection error: the network is down.');
                }
                return $this->inner->send($method, $url, $headers, $body, $timeout);
            }
        };
        $client = $this->client(['transport' => $transport, 'cache' => new MemoryCache()]);
        $key = self::setting('TRANSPORT_LICENSE_KEY');
        $this->assertFalse($client->validate($key)->isStale());
        $down = true;
        $stale = $client->validate($key);
        $this->assertTrue($stale->isStale());
        $this->assertTrue($stale->valid);
        $this->assertMatchesRegularExpression('/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/', (string) $stale->checkedAt());
    }

    public function testALicenseFileOfTheRealCheckoutVerifiesOffline(): void
    {
        $client = $this->client();
        $key = self::setting('TRANSPORT_LICENSE_KEY');
        $host = self::identifier('offline');
        $client->activate($key, $host);
        $form = http_build_query(['license_key' => $key, 'identifier' => $host, 'product_id' => self::productId(), 'ttl' => 3600]);
        $answer = (new CurlTransport())->send('POST', $client->apiBase() . '/licenses/checkout', [
            'Accept' => 'application/json',
            'Content-Type' => 'application/x-www-form-urlencoded',
        ], $form, 30.0);
        $this->assertSame(200, $answer->status, $answer->body);
        $file = json_decode($answer->body, true)['data']['license_file'];
        $checked = $client->verifyLicenseFile($file, ['identifier' => $host]);
        $this->assertSame($host, $checked->identifier);
        $this->assertSame(self::productId(), $checked->product_id);
        $this->assertSame($key, $checked->license_key);
        $this->assertTrue($checked->valid);
        $later = $this->refusal(function () use ($client, $file) {
            $client->verifyLicenseFile($file, ['now' => time() + 7200]);
        });
        $this->assertSame('LICENSE_FILE_EXPIRED', $later->getErrorCode());
        $client->deactivate($key, $host);
    }
}
