<?php

namespace Licensing\Tests\Support;

/**
 * A TCP port that takes connections (the kernel completes them from the backlog) and never
 * answers: a server that hangs. Closed with the object, or by `close()`.
 */
final class SilentListener
{
    /** @var resource|null */
    private $socket;
    /** @var string */
    public $url;

    public function __construct()
    {
        $socket = stream_socket_server('tcp://127.0.0.1:0', $errno, $error);
        if ($socket === false) {
            throw new \RuntimeException('No listener: ' . $error);
        }
        $this->socket = $socket;
        $this->url = 'http://' . stream_socket_get_name($socket, false);
    }

    /** A URL where nothing listens: the port of a listener opened, then closed. */
    public static function refusingUrl(): string
    {
        $listener = new self();
        $url = $listener->url;
        $listener->close();
        return $url;
    }

    public function close(): void
    {
        if ($this->socket !== null) {
            fclose($this->socket);
            $this->socket = null;
        }
    }

    public function __destruct()
    {
        $this->close();
    }
}
