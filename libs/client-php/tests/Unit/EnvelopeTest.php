<?php

namespace Licensing\Tests\Unit;

use Licensing\Http\Response;
use Licensing\LicensingClient;
use Licensing\LicensingException;
use Licensing\Tests\Support\FakeTransport;
use PHPUnit\Framework\TestCase;

/**
 * Spec 1 and 7: a success is read from `data` into a typed result; an error object, or an
 * answer that is neither, is the one LicensingException with the spec's code or the client's.
 */
final class EnvelopeTest extends TestCase
{
    /** @param array<int, mixed> $answers */
    private function client(array $answers): LicensingClient
    {
        return new LicensingClient('https://shop.example.com', 12, ['transport' => new FakeTransport($answers)]);
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

    public function testAnErrorObjectIsALicensingExceptionWithTheServersCodeMessageAndExtraFields(): void
    {
        $client = $this->client([FakeTransport::json(403, ['error' => [
            'code' => 'ACTIVATION_LIMIT_REACHED',
            'message' => 'All activation slots of this license are in use.',
            'activation_limit' => 3,
            'activations_used' => 3,
        ]])]);
        $refusal = $this->refusal(function () use ($client) {
            $client->activate('K', 'other.com');
        });
        $this->assertSame('ACTIVATION_LIMIT_REACHED', $refusal->getErrorCode());
        $this->assertSame('All activation slots of this license are in use.', $refusal->getMessage());
        $this->assertSame(403, $refusal->getHttpStatus());
        $this->assertSame(['activation_limit' => 3, 'activations_used' => 3], $refusal->getDetails());
        $this->assertTrue($refusal->isLicenseProblem());
        $this->assertFalse($refusal->isTransient());
        $this->assertNull($refusal->getRetryAfter());
    }

    public function testAnErrorWithoutAMessageIsNamedByItsCode(): void
    {
        $client = $this->client([FakeTransport::json(403, ['error' => ['code' => 'LICENSE_EXPIRED']])]);
        $refusal = $this->refusal(function () use ($client) {
            $client->activate('K', 'x');
        });
        $this->assertSame('LICENSE_EXPIRED', $refusal->getMessage());
        $this->assertTrue($refusal->isLicenseProblem());
    }

    public function testRetryAfterIsReadInSecondsOrAsAnHttpDate(): void
    {
        $later = gmdate('D, d M Y H:i:s', time() + 120) . ' GMT';
        $client = $this->client([
            FakeTransport::json(429, ['error' => ['code' => 'RATE_LIMITED', 'message' => 'Slow down.']], ['retry-after' => '3600']),
            FakeTransport::json(429, ['error' => ['code' => 'RATE_LIMITED', 'message' => 'Slow down.']], ['Retry-After' => $later]),
        ]);
        $first = $this->refusal(function () use ($client) {
            $client->deactivate('K', 'x');
        });
        $second = $this->refusal(function () use ($client) {
            $client->deactivate('K', 'x');
        });
        $this->assertSame(3600, $first->getRetryAfter());
        $this->assertTrue($first->isTransient());
        $this->assertFalse($first->isLicenseProblem());
        $this->assertGreaterThanOrEqual(100, $second->getRetryAfter());
        $this->assertLessThanOrEqual(120, $second->getRetryAfter());
    }

    /** @return array<string, array{0: Response}> */
    public function unreadable(): array
    {
        return [
            'an HTML error page' => [new Response(502, ['content-type' => 'text/html'], '<html>Bad gateway</html>')],
            'a 200 that is not JSON' => [new Response(200, [], '{"data": ')],
            'a 200 without data' => [FakeTransport::json(200, ['result' => 'ok'])],
            'a 200 whose data is not an object' => [FakeTransport::json(200, ['data' => 'ok'])],
            'a JSON list' => [new Response(200, [], '[1, 2]')],
            'an error without a code' => [FakeTransport::json(400, ['error' => ['message' => 'No.']])],
        ];
    }

    /** @dataProvider unreadable */
    public function testAnAnswerThatIsNeitherEnvelopeIsInvalidResponse(Response $answer): void
    {
        $client = $this->client([$answer]);
        $refusal = $this->refusal(function () use ($client) {
            $client->deactivate('K', 'x');
        });
        $this->assertSame(LicensingException::INVALID_RESPONSE, $refusal->getErrorCode());
        $this->assertSame('Invalid response from server.', $refusal->getMessage());
        $this->assertSame($answer->status, $refusal->getHttpStatus());
        $this->assertTrue($refusal->isTransient());
    }

    public function testAnUnknownCodeIsAGenericFailureUnlessItsStatusSaysTheServerIsOverloaded(): void
    {
        $client = $this->client([
            FakeTransport::json(403, ['error' => ['code' => 'SOMETHING_NEW', 'message' => 'New.']]),
            FakeTransport::json(503, ['error' => ['code' => 'SOMETHING_NEW', 'message' => 'Busy.']], ['retry-after' => '3600']),
        ]);
        $generic = $this->refusal(function () use ($client) {
            $client->deactivate('K', 'x');
        });
        $overloaded = $this->refusal(function () use ($client) {
            $client->deactivate('K', 'x');
        });
        $this->assertSame('SOMETHING_NEW', $generic->getErrorCode());
        $this->assertFalse($generic->isLicenseProblem());
        $this->assertFalse($generic->isTransient());
        $this->assertTrue($overloaded->isTransient());
    }

    public function testAConnectionFailureOfTheTransportIsThrownAsItIs(): void
    {
        $failure = new LicensingException(LicensingException::CONNECTION_ERROR, 'Connection error: refused.');
        $client = new LicensingClient('https://shop.example.com', 12, [
            'transport' => new FakeTransport([$failure]),
        ]);
        $refusal = $this->refusal(function () use ($client) {
            $client->deactivate('K', 'x');
        });
        $this->assertSame($failure, $refusal);
        $this->assertSame(0, $refusal->getHttpStatus());
        $this->assertTrue($refusal->isTransient());
    }

    public function testAnUnknownKeyIsAValidationThatIsNotValidNotAnException(): void
    {
        $client = $this->client([FakeTransport::json(200, ['data' => [
            'valid' => false,
            'status' => 'invalid',
            'license_key' => 'NOPE',
            'product' => null,
            'plan' => null,
            'activation_type' => null,
            'activation_limit' => 0,
            'activations_used' => 0,
            'expires_at' => null,
            'identifier_activated' => false,
        ]])]);
        $validation = $client->validate('NOPE', 'example.com');
        $this->assertFalse($validation->valid);
        $this->assertSame('invalid', $validation->status);
        $this->assertNull($validation->product);
        $this->assertSame([], $validation->entitlements);
    }

    public function testFieldsTheClientDoesNotNameStayInToArray(): void
    {
        $client = $this->client([FakeTransport::json(200, ['data' => ['update_available' => false, 'future_field' => 1]])]);
        $info = $client->checkForUpdate('');
        $this->assertSame(1, $info->toArray()['future_field']);
        $this->assertFalse($info->toArray()['update_available']);
        $this->assertArrayNotHasKey('payload', $info->toArray());
    }
}
