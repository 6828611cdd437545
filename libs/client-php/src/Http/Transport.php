<?php

namespace Licensing\Http;

/**
 * One HTTP exchange. An answer of any status is a `Response`; no answer at all (refused,
 * timed out, cut off) is a `LicensingException` with the code `CONNECTION_ERROR`.
 */
interface Transport
{
    /**
     * @param array<string, string> $headers request headers by name
     * @param float $timeout seconds the whole exchange may take
     * @throws \Licensing\LicensingException CONNECTION_ERROR when no answer came
     */
    public function send(string $method, string $url, array $headers, ?string $body, float $timeout): Response;
}
