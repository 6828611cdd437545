<?php

namespace Licensing\Tests\Support;

use Licensing\Http\Response;
use Licensing\Http\Transport;

/** A transport that answers from a list and records every request it was sent. */
final class FakeTransport implements Transport
{
    /** @var array<int, Response|\Throwable|callable> */
    private $answers;
    /** @var array<int, array<string, mixed>> */
    public $requests = [];

    /**
     * @param array<int, Response|\Throwable|callable> $answers in order; a callable gets the request
     */
    public function __construct(array $answers)
    {
        $this->answers = $answers;
    }

    public function send(string $method, string $url, array $headers, ?string $body, float $timeout): Response
    {
        $request = ['method' => $method, 'url' => $url, 'headers' => $headers, 'body' => $body, 'timeout' => $timeout];
        $this->requests[] = $request;
        if ($this->answers === []) {
            throw new \LogicException('The fake transport has no answer left for ' . $method . ' ' . $url);
        }
        $answer = array_shift($this->answers);
        if (is_callable($answer)) {
            $answer = $answer($request);
        }
        if ($answer instanceof \Throwable) {
            throw $answer;
        }
        return $answer;
    }

    /** A JSON answer. */
    public static function json(int $status, array $body, array $headers = []): Response
    {
        return new Response($status, $headers + ['content-type' => 'application/json'], (string) json_encode($body));
    }
}
