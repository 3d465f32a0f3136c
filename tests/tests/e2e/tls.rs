//! TLS: the server serves a certificate made with the `openssl` CLI; a
//! client that trusts its CA talks to it, a plain-text client and a client
//! that trusts no one cannot.

use arbiter_e2e::{TestServer, new_game, regulations, v1 as pb};
use arbiter_server::TlsFiles;
use tonic::transport::{Channel, ClientTlsConfig};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_clients_work_and_plain_text_fails() {
    let certs = tempfile::tempdir().unwrap();
    let (ca, cert_pem, key_pem) = arbiter_e2e::test_certificates(certs.path());
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("arbiter.db").display());
    // The harness waits for the health check over TLS before returning.
    let server = TestServer::start_tls(Some(dir), url, TlsFiles { cert_pem, key_pem }, ca).await;
    assert!(server.url().starts_with("https://"));

    let mut arbiter = server.arbiter().await;
    let created = arbiter.create_game(new_game(regulations("5+2", pb::Mode::Online), true)).await.unwrap();
    let created = created.into_inner();
    let name = created.game.unwrap().name;
    let mut white = server.client(Some(&created.white_token)).await;
    white.make_move(arbiter_e2e::make_move(&name, "e2e4")).await.unwrap();
    let game = arbiter_e2e::get_game(&mut arbiter, &name).await;
    assert_eq!(game.moves_uci, ["e2e4"]);

    // Plain text to the TLS port: the connection or the call fails.
    let plain = format!("http://{}", server.addr);
    if let Ok(channel) = Channel::from_shared(plain).unwrap().connect().await {
        let mut c = pb::arbiter_service_client::ArbiterServiceClient::new(channel);
        let r = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            c.get_game(pb::GetGameRequest { name: name.clone() }),
        )
        .await
        .expect("the plain-text call ends");
        assert!(r.is_err(), "a plain-text call succeeded on a TLS port");
    }
    // A TLS client that does not trust the test CA fails the handshake.
    let untrusting = Channel::from_shared(format!("https://{}", server.addr))
        .unwrap()
        .tls_config(ClientTlsConfig::new().domain_name("localhost"))
        .unwrap()
        .connect()
        .await;
    if let Ok(channel) = untrusting {
        let mut c = pb::arbiter_service_client::ArbiterServiceClient::new(channel);
        assert!(c.get_game(pb::GetGameRequest { name: name.clone() }).await.is_err());
    }
    server.stop().await;
}
