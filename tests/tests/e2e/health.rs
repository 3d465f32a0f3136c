//! gRPC health checking and server reflection.

use arbiter_e2e::TestServer;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
use tonic_reflection::pb::v1 as reflection;
use tonic_reflection::pb::v1alpha as reflection_alpha;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_reports_serving() {
    let server = TestServer::start().await;
    let mut health = HealthClient::new(server.channel().await);
    for service in ["", "arbiter.v1.ArbiterService"] {
        let r = health.check(HealthCheckRequest { service: service.into() }).await.unwrap().into_inner();
        assert_eq!(r.status, ServingStatus::Serving as i32, "{service:?}");
    }
    let unknown = health.check(HealthCheckRequest { service: "no.such.Service".into() }).await.unwrap_err();
    assert_eq!(unknown.code(), tonic::Code::NotFound);
    // No token is needed for health.
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reflection_lists_the_api() {
    let server = TestServer::start().await;
    use reflection::server_reflection_client::ServerReflectionClient;
    use reflection::server_reflection_request::MessageRequest;
    use reflection::server_reflection_response::MessageResponse;
    let mut client = ServerReflectionClient::new(server.channel().await);
    let requests = vec![
        reflection::ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        },
        reflection::ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::FileContainingSymbol("arbiter.v1.ArbiterService".into())),
        },
    ];
    let mut stream = client.server_reflection_info(tokio_stream::iter(requests)).await.unwrap().into_inner();
    let listed = stream.message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = listed.message_response else {
        panic!("not a service list: {listed:?}");
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(names.iter().any(|n| n == "arbiter.v1.ArbiterService"), "{names:?}");
    assert!(names.iter().any(|n| n == "grpc.health.v1.Health"), "{names:?}");
    let file = stream.message().await.unwrap().unwrap();
    let Some(MessageResponse::FileDescriptorResponse(files)) = file.message_response else {
        panic!("not a file descriptor: {file:?}");
    };
    assert!(!files.file_descriptor_proto.is_empty());

    // The older v1alpha protocol, for older grpcurl.
    use reflection_alpha::server_reflection_client::ServerReflectionClient as AlphaClient;
    let mut alpha = AlphaClient::new(server.channel().await);
    let request = reflection_alpha::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(reflection_alpha::server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
    };
    let mut stream = alpha.server_reflection_info(tokio_stream::iter([request])).await.unwrap().into_inner();
    let listed = stream.message().await.unwrap().unwrap();
    let Some(reflection_alpha::server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        listed.message_response
    else {
        panic!("not a service list: {listed:?}");
    };
    assert!(list.service.iter().any(|s| s.name == "arbiter.v1.ArbiterService"));
    server.stop().await;
}
