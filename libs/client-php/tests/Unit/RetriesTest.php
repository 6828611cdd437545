<?php

namespace Licensing\Tests\Unit;

use Licensing\LicensingClient;
use Licensing\LicensingException;
use Licensing\Tests\Support\FakeTransport;
use PHPUnit\Framework\TestCase;

/**
 * Spec 7 rule 2, as libs/client retries: a call safe to repeat (activate, validate, the update
 * check) is sent again after a transient failure, at most twice, never before `Retry-After`,
 * and only within the timeout, which bounds the whole call and is what the transport is given.
 */
final class RetriesTest extends TestCase
{
    private const ACTIVATION = ['status' => 'active', 'license_key' => 'K', 'identifier' => 'example.com'];

    private static function internalError(array $headers = []): \Licensing\Http\Response
    {
        return FakeTransport::json(500, ['error' => ['code' => 'INTERNAL_ERROR', 'message' => 'Unexpected failure.']], $headers);
    }

    private static function connectionError(): LicensingException
    {
        return new LicensingException(LicensingException::CONNECTION_ERROR, 'Connection error: refused.');
    }

    private function client(FakeTransport $transport, float $timeout = 15.0): LicensingClient
    {
        return new LicensingClient('https://shop.example.com', 12, ['transport' => $transport, 'timeout' => $timeout]);
    }

    public function testActivateIsSentAgainAfterTransientFailuresAndAnswersWithTheSuccess(): void
    {
        $transport = new FakeTransport([self::internalError(), self::connectionError(), FakeTransport::json(200, ['data' => self::ACTIVATION])]);
        $activation = $this->client($transport)->activate('K', 'example.com');
        $this->assertSame('example.com', $activation->identifier);
        $this->assertCount(3, $transport->requests);
        $this->assertSame($transport->requests[0]['body'], $transport->requests[2]['body']);
    }

    public function testAfterTwoRetriesTheLastFailureIsThrown(): void
    {
        $transport = new FakeTransport([self::internalError(), self::internalError(), self::internalError(), FakeTransport::json(200, ['data' => self::ACTIVATION])]);
        try {
            $this->client($transport)->checkForUpdate('K');
            $this->fail('The update check succeeded.');
        } catch (LicensingException $failure) {
            $this->assertSame('INTERNAL_ERROR', $failure->getErrorCode());
        }
        $this->assertCount(3, $transport->requests);
    }

    public function testDeactivateIsNeverRetried(): void
    {
        $transport = new FakeTransport([self::internalError(), FakeTransport::json(200, ['data' => self::ACTIVATION])]);
        $this->expectExceptionObject(new LicensingException('INTERNAL_ERROR', 'Unexpected failure.'));
        try {
            $this->client($transport)->deactivate('K', 'example.com');
        } finally {
            $this->assertCount(1, $transport->requests);
        }
    }

    public function testAnAnswerAboutTheLicenseIsNotRetried(): void
    {
        $transport = new FakeTransport([
            FakeTransport::json(403, ['error' => ['code' => 'LICENSE_EXPIRED', 'message' => 'The license has expired.']]),
            FakeTransport::json(200, ['data' => self::ACTIVATION]),
        ]);
        try {
            $this->client($transport)->activate('K', 'example.com');
            $this->fail('The activation succeeded.');
        } catch (LicensingException $refusal) {
            $this->assertSame('LICENSE_EXPIRED', $refusal->getErrorCode());
        }
        $this->assertCount(1, $transport->requests);
    }

    public function testARetryAfterLongerThanTheTimeoutEndsTheCallAtOnce(): void
    {
        $transport = new FakeTransport([
            FakeTransport::json(429, ['error' => ['code' => 'RATE_LIMITED', 'message' => 'Too many requests.']], ['retry-after' => '60']),
            FakeTransport::json(200, ['data' => self::ACTIVATION]),
        ]);
        try {
            $this->client($transport, 5.0)->activate('K', 'example.com');
            $this->fail('The activation succeeded.');
        } catch (LicensingException $failure) {
            $this->assertSame('RATE_LIMITED', $failure->getErrorCode());
            $this->assertSame(60, $failure->getRetryAfter());
        }
        $this->assertCount(1, $transport->requests);
    }

    public function testNoRetryStartsWhenItsWaitDoesNotFitInTheTimeout(): void
    {
        // 0.1 s: the first wait (at least 125 ms) is already past it.
        $transport = new FakeTransport([self::connectionError(), FakeTransport::json(200, ['data' => self::ACTIVATION])]);
        $this->expectException(LicensingException::class);
        try {
            $this->client($transport, 0.1)->activate('K', 'example.com');
        } finally {
            $this->assertCount(1, $transport->requests);
        }
    }

    public function testTheTransportIsGivenWhatIsLeftOfTheTimeout(): void
    {
        $transport = new FakeTransport([self::internalError(), FakeTransport::json(200, ['data' => self::ACTIVATION])]);
        $this->client($transport, 4.0)->activate('K', 'example.com');
        $first = $transport->requests[0]['timeout'];
        $second = $transport->requests[1]['timeout'];
        $this->assertGreaterThan(3.5, $first);
        $this->assertLessThanOrEqual(4.0, $first);
        $this->assertLessThan($first, $second);
    }

    public function testTheDefaultTimeoutIsFifteenSeconds(): void
    {
        $transport = new FakeTransport([FakeTransport::json(200, ['data' => self::ACTIVATION])]);
        (new LicensingClient('https://shop.example.com', 12, ['transport' => $transport]))->activate('K', 'x');
        $this->assertGreaterThan(14.0, $transport->requests[0]['timeout']);
        $this->assertLessThanOrEqual(15.0, $transport->requests[0]['timeout']);
    }
}
