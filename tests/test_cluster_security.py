"""A local cluster others cannot use: TLS with temporary credentials, or a note saying so."""

import pytest

from simcore.sweep import grid


def test_the_local_cluster_speaks_tls_and_refuses_clients_without_its_credentials():
    from distributed import Client

    with grid.connect(workers=1) as connection:
        address = connection.client.scheduler.address
        assert address.startswith("tls://127.0.0.1:")
        assert connection.client.submit(sum, [1, 2]).result() == 3
        with pytest.raises(Exception):  # noqa: B017 - no credentials: no connection
            Client(address.replace("tls://", "tcp://"), timeout="3s", set_as_default=False)
        with pytest.raises(Exception):  # noqa: B017
            Client(address, timeout="3s", set_as_default=False)


def test_without_cryptography_the_cluster_runs_and_says_it_is_unauthenticated(monkeypatch, capsys):
    from distributed.security import Security

    def no_cryptography():
        raise ImportError("Using `Security.temporary` requires `cryptography`")

    monkeypatch.setattr(Security, "temporary", staticmethod(no_cryptography))
    with grid.connect(workers=1) as connection:
        assert connection.client.scheduler.address.startswith("tcp://127.0.0.1:")
    err = capsys.readouterr().err
    assert err.strip() == grid.UNSECURED and "simcore[secure]" in err
