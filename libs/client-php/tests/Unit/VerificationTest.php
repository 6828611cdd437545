<?php

namespace Licensing\Tests\Unit;

use Licensing\Cache\MemoryCache;
use Licensing\Http\Response;
use Licensing\LicensingClient;
use Licensing\LicensingException;
use Licensing\Tests\Support\FakeTransport;
use Licensing\Tests\Support\Signer;
use Licensing\Validation\SignedTime;
use Licensing\Verification\AnswerVerifier;
use PHPUnit\Framework\TestCase;

/**
 * With `keys` pinned, as libs/client does: a fresh nonce and the body's digest go with every
 * call, and every answer is checked before it is read; one that fails is SIGNATURE_INVALID,
 * never a result, and is not retried.
 */
final class VerificationTest extends TestCase
{
    private const NOW = 1767225600.0;
    private const VALID = ['data' => ['valid' => true, 'status' => 'active', 'license_key' => 'K', 'identifier_activated' => true]];

    /** @var Signer */
    private $signer;

    protected function setUp(): void
    {
        $this->signer = new Signer(1, self::NOW);
    }

    /** @param array<string, mixed> $options */
    private function client(FakeTransport $transport, array $options = []): LicensingClient
    {
        return new LicensingClient('https://shop.example.com', 12, $options + [
            'transport' => $transport,
            'keys' => $this->signer->keySet(),
            'clock' => static function (): float {
                return self::NOW;
            },
        ]);
    }

    private function refusal(callable $call): LicensingException
    {
        try {
            $call();
        } catch (LicensingException $refusal) {
            return $refusal;
        }
        $this->fail('No LicensingException was thrown.');
    }

    public function testEachCallSendsAFreshNonceAndTheDigestOfItsBody(): void
    {
        $transport = new FakeTransport([$this->signer->answers(200, self::VALID), $this->signer->answers(200, self::VALID)]);
        $client = $this->client($transport);
        $this->assertTrue($client->validate('K')->valid);
        $client->validate('K');
        list($first, $second) = $transport->requests;
        $this->assertMatchesRegularExpression('/^[A-Za-z0-9_-]{32}$/', $first['headers']['Licensing-Nonce']);
        $this->assertNotSame($first['headers']['Licensing-Nonce'], $second['headers']['Licensing-Nonce']);
        $this->assertSame(AnswerVerifier::contentDigest($first['body']), $first['headers']['Content-Digest']);
    }

    public function testAGetSendsANonceAndNoDigest(): void
    {
        $transport = new FakeTransport([$this->signer->answers(200, ['data' => ['update_available' => false]])]);
        $this->assertFalse($this->client($transport)->checkForUpdate('K')->update_available);
        $this->assertArrayHasKey('Licensing-Nonce', $transport->requests[0]['headers']);
        $this->assertArrayNotHasKey('Content-Digest', $transport->requests[0]['headers']);
    }

    public function testWithoutKeysNoNonceIsSentAndAnswersAreReadUnchecked(): void
    {
        $transport = new FakeTransport([FakeTransport::json(200, self::VALID)]);
        $client = new LicensingClient('https://shop.example.com', 12, ['transport' => $transport]);
        $this->assertTrue($client->validate('K')->valid);
        $this->assertArrayNotHasKey('Licensing-Nonce', $transport->requests[0]['headers']);
    }

    public function testAnUnsignedAnswerIsSignatureInvalidAndNotRetried(): void
    {
        $transport = new FakeTransport([FakeTransport::json(200, self::VALID), FakeTransport::json(200, self::VALID)]);
        $client = $this->client($transport);
        $refusal = $this->refusal(function () use ($client) {
            $client->validate('K');
        });
        $this->assertSame(LicensingException::SIGNATURE_INVALID, $refusal->getErrorCode());
        $this->assertSame("The server's answer failed verification: the answer is not signed.", $refusal->getMessage());
        $this->assertSame(200, $refusal->getHttpStatus());
        $this->assertTrue($refusal->isLicenseProblem());
        $this->assertFalse($refusal->isTransient());
        $this->assertCount(1, $transport->requests);
    }

    public function testAForgedErrorIsRefusedLikeAForgedSuccess(): void
    {
        $transport = new FakeTransport([FakeTransport::json(500, ['error' => ['code' => 'INTERNAL_ERROR', 'message' => 'x']])]);
        $client = $this->client($transport);
        $refusal = $this->refusal(function () use ($client) {
            $client->activate('K', 'x');
        });
        $this->assertSame(LicensingException::SIGNATURE_INVALID, $refusal->getErrorCode());
    }

    public function testASignedRefusalIsTheServersRefusal(): void
    {
        $transport = new FakeTransport([$this->signer->answers(403, ['error' => ['code' => 'LICENSE_INVALID', 'message' => 'The license is not active.']])]);
        $client = $this->client($transport);
        $refusal = $this->refusal(function () use ($client) {
            $client->activate('K', 'x');
        });
        $this->assertSame('LICENSE_INVALID', $refusal->getErrorCode());
    }

    public function testAnAnswerSignedByAnotherKeyIsRefused(): void
    {
        $other = new Signer(2, self::NOW);
        $client = $this->client(new FakeTransport([$other->answers(200, self::VALID)]));
        $refusal = $this->refusal(function () use ($client) {
            $client->validate('K');
        });
        $this->assertSame(LicensingException::SIGNATURE_INVALID, $refusal->getErrorCode());
        $this->assertStringContainsString('not pinned', $refusal->getMessage());
    }

    public function testAnAnswerToAnotherNonceIsRefused(): void
    {
        $replay = function (array $request): Response {
            $request['headers']['Licensing-Nonce'] = 'b3RoZXItbm9uY2Utb2YtYW5vdGhlcg';
            return $this->signer->answer($request, 200, self::VALID);
        };
        $client = $this->client(new FakeTransport([$replay]));
        $refusal = $this->refusal(function () use ($client) {
            $client->validate('K');
        });
        $this->assertStringContainsString('does not echo the nonce', $refusal->getMessage());
    }

    public function testAnAnswerSignedLongBeforeTheClockIsRefused(): void
    {
        $this->signer->now = self::NOW - 3600;
        $client = $this->client(new FakeTransport([$this->signer->answers(200, self::VALID)]));
        $refusal = $this->refusal(function () use ($client) {
            $client->validate('K');
        });
        $this->assertStringContainsString('expired', $refusal->getMessage());
    }

    public function testAKeySetWithNoUsableKeyRefusesEveryAnswer(): void
    {
        $keys = $this->signer->keySet();
        $keys['keys'][0]['kid'] = 'not-its-thumbprint';
        $client = $this->client(new FakeTransport([$this->signer->answers(200, self::VALID)]), ['keys' => json_encode($keys)]);
        $refusal = $this->refusal(function () use ($client) {
            $client->validate('K');
        });
        $this->assertStringContainsString('none of the pinned keys is a usable Ed25519 key', $refusal->getMessage());
    }

    public function testAnAnswerWithNothingReadableIsInvalidResponseSignedOrNot(): void
    {
        $client = $this->client(new FakeTransport([new Response(502, [], '<html>Bad gateway</html>')]));
        $refusal = $this->refusal(function () use ($client) {
            $client->deactivate('K', 'x');
        });
        $this->assertSame(LicensingException::INVALID_RESPONSE, $refusal->getErrorCode());
    }

    public function testTheLatestSignedTimeIsKeptInTheCache(): void
    {
        $cache = new MemoryCache();
        $client = $this->client(new FakeTransport([$this->signer->answers(200, self::VALID)]), ['cache' => $cache]);
        $client->validate('K');
        $this->assertSame((string) (int) (self::NOW * 1000), $cache->get(SignedTime::ENTRY));
    }
}
