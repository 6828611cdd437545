<?php

namespace Licensing\Tests\Unit;

use Licensing\Cache\Cache;
use Licensing\Cache\MemoryCache;
use Licensing\LicensingClient;
use Licensing\LicensingException;
use Licensing\Tests\Support\FakeTransport;
use Licensing\Tests\Support\Signer;
use PHPUnit\Framework\TestCase;

/**
 * The offline grace, as libs/client keeps it: with keys and a cache, the last verified
 * validation answers (stale) while the server cannot answer, within the grace; never for
 * another key or identifier, never after a verdict against the license, never when the clock
 * was set back behind a time the server vouched for.
 */
final class OfflineGraceTest extends TestCase
{
    private const NOW = 1767225600.0;
    private const VALID = ['data' => ['valid' => true, 'status' => 'active', 'license_key' => 'K', 'identifier_activated' => true]];

    /** @var Signer */
    private $signer;
    /** @var float */
    private $now = self::NOW;
    /** @var MemoryCache */
    private $cache;

    protected function setUp(): void
    {
        $this->signer = new Signer(1, self::NOW);
        $this->cache = new MemoryCache();
    }

    /**
     * @param array<int, mixed> $answers
     * @param array<string, mixed> $options
     */
    private function client(array $answers, array $options = []): LicensingClient
    {
        return new LicensingClient('https://shop.example.com', 12, $options + [
            'transport' => new FakeTransport($answers),
            'keys' => $this->signer->keySet(),
            'cache' => $this->cache,
            'clock' => function (): float {
                return $this->now;
            },
        ]);
    }

    /**
     * The signed failure of a server whose services cannot answer; its `Retry-After` is past any
     * timeout, so it is not retried.
     */
    private function down(): callable
    {
        return $this->signer->answers(500, ['error' => ['code' => 'INTERNAL_ERROR', 'message' => 'Unexpected failure.']], ['retry-after' => '3600']);
    }

    /** The client's clock and the server's, moved together. */
    private function moveClocksTo(float $now): void
    {
        $this->now = $now;
        $this->signer->now = $now;
    }

    private function failure(LicensingClient $client, ?string $identifier = 'example.com'): LicensingException
    {
        try {
            $client->validate('K', $identifier);
        } catch (LicensingException $failure) {
            return $failure;
        }
        $this->fail('The validation was answered.');
    }

    public function testWhileTheServerCannotAnswerTheLastVerifiedValidationAnswersStale(): void
    {
        $client = $this->client([$this->signer->answers(200, self::VALID), $this->down()]);
        $this->assertFalse($client->validate('K', 'example.com')->isStale());
        $this->moveClocksTo(self::NOW + 71 * 3600);
        $stale = $client->validate('K', 'example.com');
        $this->assertTrue($stale->isStale());
        $this->assertSame('2026-01-01T00:00:00.000Z', $stale->checkedAt());
        $this->assertTrue($stale->valid);
        $this->assertSame('K', $stale->license_key);
    }

    public function testAConnectionFailureIsAnsweredFromTheGraceToo(): void
    {
        $refused = new LicensingException(LicensingException::CONNECTION_ERROR, 'Connection error: refused.');
        $client = $this->client([$this->signer->answers(200, self::VALID), $refused, $refused, $refused], ['timeout' => 5]);
        $client->validate('K', 'example.com');
        $this->assertTrue($client->validate('K', 'example.com')->isStale());
    }

    public function testPastTheGraceTheFailureIsThrown(): void
    {
        $client = $this->client([$this->signer->answers(200, self::VALID), $this->down()]);
        $client->validate('K', 'example.com');
        $this->moveClocksTo(self::NOW + 72 * 3600 + 1);
        $this->assertSame('INTERNAL_ERROR', $this->failure($client)->getErrorCode());
    }

    public function testTheGraceIsTheOptionsSeconds(): void
    {
        $client = $this->client([$this->signer->answers(200, self::VALID), $this->down()], ['offline_grace' => 60]);
        $client->validate('K', 'example.com');
        $this->moveClocksTo(self::NOW + 61);
        $this->assertSame('INTERNAL_ERROR', $this->failure($client)->getErrorCode());
    }

    public function testAGraceOfZeroKeepsNothing(): void
    {
        $client = $this->client([$this->signer->answers(200, self::VALID), $this->down()], ['offline_grace' => 0]);
        $client->validate('K', 'example.com');
        $this->assertSame('INTERNAL_ERROR', $this->failure($client)->getErrorCode());
    }

    public function testWithoutKeysThereIsNoGrace(): void
    {
        $down = FakeTransport::json(500, ['error' => ['code' => 'INTERNAL_ERROR', 'message' => 'x']], ['retry-after' => '3600']);
        $client = $this->client([FakeTransport::json(200, self::VALID), $down], ['keys' => null]);
        $client->validate('K', 'example.com');
        $this->assertSame('INTERNAL_ERROR', $this->failure($client)->getErrorCode());
    }

    public function testAnotherIdentifierOrKeyGetsNothingOfIt(): void
    {
        $client = $this->client([$this->signer->answers(200, self::VALID), $this->down(), $this->down()]);
        $client->validate('K', 'example.com');
        $this->assertSame('INTERNAL_ERROR', $this->failure($client, 'other.example')->getErrorCode());
        $this->assertSame('INTERNAL_ERROR', $this->failure($client, null)->getErrorCode());
    }

    public function testAVerdictAgainstTheLicenseReplacesTheLastGoodOne(): void
    {
        $revoked = ['data' => ['valid' => false, 'status' => 'revoked', 'license_key' => 'K', 'identifier_activated' => true]];
        $client = $this->client([$this->signer->answers(200, self::VALID), $this->signer->answers(200, $revoked), $this->down()]);
        $client->validate('K', 'example.com');
        $this->assertFalse($client->validate('K', 'example.com')->valid);
        $this->assertSame('INTERNAL_ERROR', $this->failure($client)->getErrorCode());
    }

    public function testARefusalAboutTheLicenseIsThrownNotAnsweredFromTheGrace(): void
    {
        $mismatch = ['error' => ['code' => 'PRODUCT_MISMATCH', 'message' => 'Another product.']];
        $client = $this->client([$this->signer->answers(200, self::VALID), $this->signer->answers(403, $mismatch), $this->down()]);
        $client->validate('K', 'example.com');
        $this->assertSame('PRODUCT_MISMATCH', $this->failure($client)->getErrorCode());
        $this->assertSame('INTERNAL_ERROR', $this->failure($client)->getErrorCode());
    }

    public function testAClockSetBackBehindASignedTimeIsClockTampered(): void
    {
        // The device's clock set back an hour; the server, unreachable, says nothing.
        $refused = new LicensingException(LicensingException::CONNECTION_ERROR, 'Connection error: refused.');
        $client = $this->client([$this->signer->answers(200, self::VALID), $refused], ['timeout' => 0.1]);
        $client->validate('K', 'example.com');
        $this->now = self::NOW - 3600;
        $failure = $this->failure($client);
        $this->assertSame('CLOCK_TAMPERED', $failure->getErrorCode());
        $this->assertTrue($failure->isLicenseProblem());
    }

    public function testAnAlteredEntryOfTheCacheGivesNoGrace(): void
    {
        $client = $this->client([$this->signer->answers(200, self::VALID), $this->down(), $this->down()]);
        $client->validate('K', 'example.com');
        foreach ($this->cache->all() as $name => $value) {
            $kept = json_decode($value, true);
            if (is_array($kept) && isset($kept['body'])) {
                $kept['body'] = base64_encode(str_replace('"valid":true', '"valid":1', (string) base64_decode($kept['body'])));
                $this->cache->set($name, (string) json_encode($kept));
                $names[] = $name;
            }
        }
        $this->assertNotEmpty($names ?? []);
        $this->assertSame('INTERNAL_ERROR', $this->failure($client)->getErrorCode());
        foreach ($names as $name) {
            $this->cache->set($name, 'not an answer');
        }
        $this->assertSame('INTERNAL_ERROR', $this->failure($client)->getErrorCode());
    }

    public function testTheCacheHoldsNoLicenseKeyInItsNames(): void
    {
        $client = $this->client([$this->signer->answers(200, self::VALID)]);
        $client->validate('SECRET-KEY', 'example.com');
        foreach (array_keys($this->cache->all()) as $name) {
            $this->assertStringStartsWith('licensing:', $name);
            $this->assertStringNotContainsString('SECRET-KEY', $name);
        }
    }

    public function testACacheThatFailsNeverFailsACall(): void
    {
        $broken = new class implements Cache {
            public function get(string $key): ?string
            {
                throw new \RuntimeException('The cache is down.');
            }

            public function set(string $key, string $value): void
            {
                throw new \RuntimeException('The cache is down.');
            }
        };
        $client = $this->client([$this->signer->answers(200, self::VALID), $this->down()], ['cache' => $broken]);
        $this->assertTrue($client->validate('K', 'example.com')->valid);
        $this->assertSame('INTERNAL_ERROR', $this->failure($client)->getErrorCode());
    }
}
