<?php

namespace Licensing\Tests\Unit;

use Licensing\Cache\MemoryCache;
use Licensing\Http\CurlTransport;
use Licensing\LicensingClient;
use Licensing\Tests\Support\FakeTransport;
use PHPUnit\Framework\TestCase;

/** A wrong option is an \InvalidArgumentException when the client is made, not a failed call. */
final class OptionsTest extends TestCase
{
    /** @return array<string, array{0: string, 1: int, 2: array<string, mixed>}> */
    public function wrong(): array
    {
        return [
            'an unknown option' => ['https://shop.example.com', 12, ['timeot' => 5]],
            'a relative store URL' => ['shop.example.com', 12, []],
            'an ftp store URL' => ['ftp://shop.example.com', 12, []],
            'a product id of 0' => ['https://shop.example.com', 0, []],
            'a timeout of 0' => ['https://shop.example.com', 12, ['timeout' => 0]],
            'a negative timeout' => ['https://shop.example.com', 12, ['timeout' => -1]],
            'a timeout as text' => ['https://shop.example.com', 12, ['timeout' => '15']],
            'an infinite timeout' => ['https://shop.example.com', 12, ['timeout' => INF]],
            'a negative grace' => ['https://shop.example.com', 12, ['offline_grace' => -1]],
            'a negative tolerance' => ['https://shop.example.com', 12, ['clock_tolerance' => -0.5]],
            'keys that are not a key set' => ['https://shop.example.com', 12, ['keys' => ['x' => 1]]],
            'keys that are not JSON' => ['https://shop.example.com', 12, ['keys' => '{"keys": [']],
            'keys of another type' => ['https://shop.example.com', 12, ['keys' => 42]],
            'a cache that is not a Cache' => ['https://shop.example.com', 12, ['cache' => new \ArrayObject()]],
            'a transport that is not a Transport' => ['https://shop.example.com', 12, ['transport' => 'curl']],
            'headers that are not an array' => ['https://shop.example.com', 12, ['headers' => 'X-A: 1']],
            'a header name with a space' => ['https://shop.example.com', 12, ['headers' => ['X A' => '1']]],
            'a header value on two lines' => ['https://shop.example.com', 12, ['headers' => ['X-A' => "1\r\nX-B: 2"]]],
            'a clock that is not callable' => ['https://shop.example.com', 12, ['clock' => 'not a function']],
        ];
    }

    /**
     * @dataProvider wrong
     * @param array<string, mixed> $options
     */
    public function testAWrongOptionIsRefusedWhenTheClientIsMade(string $url, int $product, array $options): void
    {
        $this->expectException(\InvalidArgumentException::class);
        new LicensingClient($url, $product, $options);
    }

    public function testEveryDocumentedOptionIsTaken(): void
    {
        $client = new LicensingClient('https://shop.example.com', 12, [
            'timeout' => 2.5,
            'keys' => ['keys' => []],
            'cache' => new MemoryCache(),
            'offline_grace' => 0,
            'clock_tolerance' => 60,
            'transport' => new CurlTransport(),
            'headers' => ['User-Agent' => 'MyPlugin/1.0'],
            'clock' => static function (): float {
                return 1767225600.0;
            },
        ]);
        $this->assertSame('https://shop.example.com/api/index.php/v1/licensing', $client->apiBase());
    }

    public function testKeysAreTakenAsAJwkSetAListOrTheirJson(): void
    {
        foreach ([['keys' => []], [], '{"keys": []}', '[]', null] as $keys) {
            $client = new LicensingClient('https://shop.example.com', 12, ['keys' => $keys, 'transport' => new FakeTransport([])]);
            $this->assertInstanceOf(LicensingClient::class, $client);
        }
    }

    public function testAWrongOptionOfACallIsRefused(): void
    {
        $client = new LicensingClient('https://shop.example.com', 12, ['transport' => new FakeTransport([])]);
        foreach ([
            function () use ($client) {
                $client->checkForUpdate('K', ['chanel' => 'beta']);
            },
            function () use ($client) {
                $client->downloadUrl('K', ['channel' => 'beta']);
            },
            function () use ($client) {
                $client->verifyLicenseFile('a.b.c', ['product_id' => 3]);
            },
        ] as $call) {
            try {
                $call();
                $this->fail('A wrong option was taken.');
            } catch (\InvalidArgumentException $refused) {
                $this->assertStringContainsString('Unknown option', $refused->getMessage());
            }
        }
    }

    public function testAClockThatAnswersNoNumberIsRefusedWhenItIsRead(): void
    {
        $client = new LicensingClient('https://shop.example.com', 12, [
            'keys' => ['keys' => []],
            'transport' => new FakeTransport([]),
            'clock' => static function () {
                return 'noon';
            },
        ]);
        $this->expectException(\InvalidArgumentException::class);
        $client->verifyLicenseFile('a.b.c');
    }
}
