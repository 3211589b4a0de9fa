package objstoretest

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// S3Bucket is the bucket the S3 tests write to.
const S3Bucket = "clusterlens-test"

// S3 configures the environment (AWS_* variables, as a user would) for the
// S3 server that .ci/services/s3.sh starts (versitygw), creates S3Bucket,
// and returns the server's endpoint and a Put through the AWS SDK.
func S3(t testing.TB) (string, Put) {
	endpoint := sharedtest.Service(t, "CLUSTERLENS_S3_ENDPOINT")
	access := sharedtest.Service(t, "CLUSTERLENS_S3_ACCESS_KEY")
	secret := sharedtest.Service(t, "CLUSTERLENS_S3_SECRET_KEY")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           access,
		"AWS_SECRET_ACCESS_KEY":       secret,
		"AWS_ENDPOINT_URL_S3":         endpoint,
		"AWS_REGION":                  "us-east-1",
		"AWS_EC2_METADATA_DISABLED":   "true", // never ask 169.254.169.254
		"AWS_CONFIG_FILE":             "/dev/null",
		"AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
		"AWS_PROFILE":                 "",
		"CLUSTERLENS_S3_ADDRESSING":   "",
	} {
		t.Setenv(k, v)
	}
	c := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: &endpoint, UsePathStyle: true,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: access, SecretAccessKey: secret}, nil
		}),
	})
	_, err := c.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(S3Bucket)})
	var owned interface{ ErrorCode() string }
	if err != nil && !(errors.As(err, &owned) && strings.HasPrefix(owned.ErrorCode(), "BucketAlready")) {
		t.Fatalf("create bucket: %v", err)
	}
	return endpoint, func(t testing.TB, key string, r io.Reader, size int64) {
		_, err := c.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(S3Bucket), Key: &key, Body: r, ContentLength: &size})
		if err != nil {
			t.Fatalf("put %s: %v", key, err)
		}
	}
}
