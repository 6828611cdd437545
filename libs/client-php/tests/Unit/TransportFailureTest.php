<?php

namespace Licensing\Tests\Unit;

use Licensing\Http\CurlTransport;
use Licensing\Http\StreamTransport;
use Licensing\Http\Transport;
use Licensing\LicensingClient;
use Licensing\LicensingException;
use Licensing\Tests\Support\SilentListener;
use PHPUnit\Framework\TestCase;

/**
 * No answer is a CONNECTION_ERROR of either transport: a server that never answers is given
 * up at the timeout, a port where nothing listens at once; never a hang.
 */
final class TransportFailureTest extends TestCase
{
    /** @return array<string, array{0: Transport}> */
    public function transports(): array
    {
        return ['curl' => [new CurlTransport()], 'streams' => [new StreamTransport()]];
    }

    private function failure(callable $call): LicensingException
    {
        try {
            $call();
        } catch (LicensingException $failure) {
            return $failure;
        }
        $this->fail('The call was answered.');
    }

    /** @dataProvider transports */
    public function testAServerThatNeverAnswersIsGivenUpAtTheTimeout(Transport $transport): void
    {
        $listener = new SilentListener();
        $failure = $this->failure(function () use ($transport, $listener) {
            $transport->send('POST', $listener->url . '/licenses/validate', ['Accept' => 'application/json'], 'license_key=K', 0.5);
        });
        $listener->close();
        $this->assertSame(LicensingException::CONNECTION_ERROR, $failure->getErrorCode());
        $this->assertSame('Connection error: no answer from the server within 0.5 seconds.', $failure->getMessage());
        $this->assertSame(0, $failure->getHttpStatus());
        $this->assertTrue($failure->isTransient());
    }

    /** @dataProvider transports */
    public function testAPortWhereNothingListensIsAConnectionError(Transport $transport): void
    {
        $failure = $this->failure(function () use ($transport) {
            $transport->send('GET', SilentListener::refusingUrl() . '/updates/1', [], null, 5.0);
        });
        $this->assertSame(LicensingException::CONNECTION_ERROR, $failure->getErrorCode());
        $this->assertStringStartsWith('Connection error: ', $failure->getMessage());
        $this->assertStringNotContainsString('within', $failure->getMessage());
    }

    /** @dataProvider transports */
    public function testTheClientsTimeoutBoundsTheWholeCallRetriesIncluded(Transport $transport): void
    {
        $listener = new SilentListener();
        $client = new LicensingClient($listener->url, 12, ['transport' => $transport, 'timeout' => 0.5]);
        $failure = $this->failure(function () use ($client) {
            $client->activate('K', 'example.com');
        });
        $listener->close();
        $this->assertSame(LicensingException::CONNECTION_ERROR, $failure->getErrorCode());
        $this->assertStringContainsString('no answer from the server within', $failure->getMessage());
    }
}
